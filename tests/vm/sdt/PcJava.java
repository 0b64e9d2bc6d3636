// SPDX-License-Identifier: GPL-2.0
// PcJava [N]: the JVM program of tests/vm/sdt/82-jvm-sdt-langs.sh. pcWork(N) calls
// pcLeaf(i) for i = 0..N-1, so with -XX:+ExtendedDTraceProbes HotSpot's method__entry
// and method__return fire once for pcWork and N times for pcLeaf, each with the class
// name PcJava, the method name and its signature ((I)I). Compiled into the image by
// tests/vm/sdtimage.sh langs (the image has no javac).
public class PcJava {
	static int pcLeaf(int i) {
		return 2 * i;
	}

	static int pcWork(int n) {
		int total = 0;
		for (int i = 0; i < n; i++)
			total += pcLeaf(i);
		return total;
	}

	public static void main(String[] args) {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 3;
		System.out.println("pcWork=" + pcWork(n));
	}
}
