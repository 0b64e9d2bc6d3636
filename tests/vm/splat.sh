# Kernel reports that fail a VM run, for report.sh and run.sh (sourced by both).
# Stalls and hung tasks are included: the debug kernel's thresholds are scaled to the
# measured speed (init).
PC_SPLAT='BUG:|WARNING:|KASAN:|Kernel panic|Oops|general protection fault|'\
'sleeping function called from invalid context|INFO: possible|INFO: trying to register|'\
'INFO: lockdep|inconsistent lock state|circular locking dependency|'\
'suspicious RCU usage|unreferenced object|UBSAN:|watchdog: BUG|hung_task|'\
'self-detected stall|rcu: INFO:|INFO: rcu_|blocked for more than|INFO: task .* blocked'

# pc_boot_report CONSOLE: the first report line of CONSOLE before /init's VM-START mark
# (the kernel's own boot, before any test or module of ours ran); fails if there is none.
pc_boot_report() {
	awk -v re="$PC_SPLAT" '/probecache-vm: VM-START/ { exit 1 } $0 ~ re { print; f = 1; exit } END { exit !f }' "$1"
}
