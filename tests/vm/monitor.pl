#!/usr/bin/perl
# What a stuck VM's CPUs are doing, read from outside: run.sh's watch_vm calls this
# at the whole-VM limit, before the NMI that makes the guest panic.
#
#   monitor.pl sample SOCKET N      QEMU's monitor at SOCKET: N samples, 1 s apart, of
#                                   every CPU's RIP, RSP and privilege level, and the
#                                   kernel-text words on each kernel-mode CPU's stack
#                                   (a stack dump without the guest's help: a CPU
#                                   spinning with interrupts off prints nothing).
#   monitor.pl nmi SOCKET           inject an NMI into every CPU
#   monitor.pl symbolize KALLSYMS   read sample's output on stdin; name the kernel's
#                                   text addresses with the guest's own /proc/kallsyms
#                                   (/init saves it at boot: the KASLR offset is in it)
use strict;
use warnings;
no warnings 'portable';	# 64-bit addresses
use IO::Select;
use IO::Socket::UNIX;

my $mode = shift // die "usage: monitor.pl sample|nmi|symbolize ...\n";

# A monitor command's answer: what arrives until the monitor is quiet for 0.5 s,
# without the echo and cursor escapes of its line editor.
sub command {
	my ($s, $cmd) = @_;
	my $sel = IO::Select->new($s);
	my $buf = '';
	print $s "$cmd\n" if defined $cmd;
	while ($sel->can_read(0.5)) {
		my $n = sysread($s, my $b, 65536);
		last unless $n;
		$buf .= $b;
	}
	$buf =~ s/\e\[[0-9;]*[A-Za-z]//g;
	$buf =~ s/\r//g;
	return $buf;
}

sub connect_monitor {
	my $s = IO::Socket::UNIX->new(Peer => shift) or exit 1;
	command($s);	# the greeting
	return $s;
}

sub sample {
	my ($sock, $n) = @_;
	my $s = connect_monitor($sock);
	for my $i (1 .. $n) {
		my $regs = command($s, 'info registers -a');
		my (%rip, %rsp, %cpl, $cpu);
		for (split /\n/, $regs) {
			$cpu = $1 if /^CPU#(\d+)/;
			next unless defined $cpu;
			$rip{$cpu} = $1 if /RIP=([0-9a-f]+)/;
			$rsp{$cpu} = $1 if /RSP=([0-9a-f]+)/;
			$cpl{$cpu} = $1 if /CPL=(\d)/;
		}
		for my $c (sort { $a <=> $b } keys %rip) {
			print "sample $i cpu $c cpl $cpl{$c} rip 0x$rip{$c}\n";
			next if $cpl{$c} ne '0';
			command($s, "cpu $c");
			my $dump = command($s, "x/96gx 0x$rsp{$c}");
			my @words = $dump =~ /\b0x(ffffffff[0-9a-f]{8})\b/g;
			print "sample $i cpu $c stack 0x$_\n" for @words;
		}
		sleep 1 if $i < $n;
	}
}

sub symbolize {
	my ($kallsyms) = @_;
	my @syms;
	if (open(my $m, '<', $kallsyms)) {
		while (<$m>) {
			my ($a, $t, $name) = split;
			push @syms, [hex($a), $name] if $t =~ /^[tT]$/;
		}
		@syms = sort { $a->[0] <=> $b->[0] } @syms;
	}
	while (<STDIN>) {
		chomp;
		my ($what, $addr) = /^(.*) 0x([0-9a-f]+)$/ or next;
		my $a = hex($addr);
		my ($lo, $hi) = (0, $#syms);
		while ($lo < $hi) {
			my $mid = int(($lo + $hi + 1) / 2);
			if ($syms[$mid][0] <= $a) { $lo = $mid } else { $hi = $mid - 1 }
		}
		my $name = @syms ? 'not kernel text' : 'no kallsyms';
		$name = sprintf('%s+0x%x', $syms[$lo][1], $a - $syms[$lo][0])
			if @syms && $syms[$lo][0] <= $a && $a - $syms[$lo][0] < 0x10000;
		print "$what 0x$addr $name\n";
	}
}

if ($mode eq 'sample') {
	sample(@ARGV);
} elsif ($mode eq 'nmi') {
	command(connect_monitor(shift), 'nmi');
} elsif ($mode eq 'symbolize') {
	symbolize(@ARGV);
} else {
	die "monitor.pl: unknown mode $mode\n";
}
