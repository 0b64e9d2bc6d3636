#!/usr/bin/perl
# tap-verdict.pl NAME RC LOG: judge one suite's output, one or more TAP streams one after
# the other (a suite that runs several programs). Debian's TAP::Parser (perl-modules)
# reads every line: tests, plans, directives, Bail out!. tests/lib/suite-verdict.sh wraps
# it; tests/harness feeds it every kind of stream.
#
# Prints "not ok - NAME: why" for every way the suite fails besides its own "not ok"
# lines, "# NAME: ..." comments for expected failures and skipped streams, and last a
# line "PASS FAIL SKIP TODO" (FAIL includes the problems printed).
#
# A stream's plan may come first or last (TAP allows either). Streams are told apart by
# their plans: a plan after results ends the stream they form; a plan before any result
# starts one, which a result numbered 1 after results of its own (or another plan) ends.
# The suite fails when
#   - a result is "not ok" (but "not ok ... # TODO": an expected failure, not counted as
#     failed; "ok ... # TODO" counts as passed, said in a comment),
#   - a plan disagrees with its stream's results, or results come with no plan (a
#     program that died before its plan),
#   - it says "Bail out!" (its reason printed; nothing after it is read),
#   - it reported no result at all ("1..0 # SKIP why": a skipped stream, counted as one
#     skip, is a result),
#   - it exited non-zero without any of the above,
#   - CI=true and it skipped anything ("ok ... # SKIP", "1..0"): CI must run everything.
# "ok ... # SKIP" counts as skipped, never as passed.
use strict;
use warnings;
use TAP::Parser;

my ($name, $rc, $log) = @ARGV;
die "usage: tap-verdict.pl NAME RC LOG\n" unless defined $log;
my $ci = ($ENV{CI} // '') eq 'true';

open(my $fh, '<', $log) or die "tap-verdict.pl: $log: $!\n";
my $tap = do { local $/; <$fh> };
close $fh;
# Only TAP's own lines: a program's other output (which TAP::Parser calls unknown) cannot
# be mistaken for TAP version or YAML lines.
$tap = join '', grep { /^(?:(?:not )?ok(?:[ \t]|$)|1\.\.\d|Bail out!|#)/ } split /^/m, $tap;

my ($pass, $fail, $skip, $todo, $bad, $total) = (0) x 6;
sub problem { $bad++; print "not ok - $name: $_[0]\n"; }

# The stream being read: its results so far, and its leading plan if it had one.
my ($n, $lead) = (0, undef);
sub close_stream {
	if (defined $lead) {
		problem("plan says 1..$lead but $n results came after it") if $n != $lead;
	} elsif ($n > 0) {
		problem("$n results without a plan line after them (died before its plan?)");
	}
	($n, $lead) = (0, undef);
}

# (TAP::Parser refuses an empty input: no line, no parser)
$tap .= "\n" if $tap ne "" && $tap !~ /\n\z/;
my $parser = $tap eq '' ? undef : TAP::Parser->new({ tap => $tap });
my $bailed = 0;
while ($parser && defined(my $r = $parser->next)) {
	if ($r->is_test) {
		my ($num) = $r->raw =~ /^(?:not )?ok\s+(\d+)/;
		close_stream() if defined $lead && $n > 0 && defined $num && $num == 1;
		$n++;
		$total++;
		if (!$r->is_actual_ok) {
			if ($r->has_todo) {
				$todo++;
				print "# $name: expected failure (TODO): ", $r->raw, "\n";
			} else {
				$fail++;
			}
		} elsif ($r->has_skip) {
			$skip++;
		} else {
			$pass++;
			print "# $name: passed although TODO: ", $r->raw, "\n" if $r->has_todo;
		}
	} elsif ($r->is_plan) {
		my $planned = $r->tests_planned;
		if (!defined $lead && $n > 0) {	# the plan at the end of its stream
			problem("plan says 1..$planned but $n results came before it") if $planned != $n;
			($n, $lead) = (0, undef);
			next;
		}
		close_stream() if defined $lead;	# a plan-first stream, then another plan
		if ($planned == 0) {	# "1..0 # SKIP why": the whole stream skipped
			$skip++;
			$total++;
			my $why = $r->explanation // '';
			print "# $name: skipped a whole stream", ($why ne '' ? ": $why" : ''), "\n";
		} else {
			$lead = $planned;
		}
	} elsif ($r->is_bailout) {
		my $why = $r->explanation // '';
		problem("Bail out!" . ($why ne '' ? " $why" : ''));
		$bailed = 1;
		last;
	}
}
close_stream() unless $bailed;
problem("reported no result") if $total == 0 && !$bailed;
problem("exited $rc without a failing result") if $rc != 0 && $fail == 0 && $bad == 0;
problem("$skip skipped under CI=true (CI must run everything)") if $ci && $skip > 0;
print $pass, ' ', $fail + $bad, ' ', $skip, ' ', $todo, "\n";
