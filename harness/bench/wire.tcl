# SPDX-License-Identifier: BSD-2-Clause
# wire.tcl: the wire driver's benchmark (`make bench`, issue 7 "Performance") — on the
# netns SRv6 fabric of harness/lib/netns.tcl built from harness/bench/wire.yaml, mrcgen's
# full MRC endpoint (a sendrecv between h0 and h1, different racks) against the
# raw-socket baseline `mrcgen blast` (the same data packets, sizes and SRv6 paths, sent in
# batches on the same sockets and io_uring loop, no transport), in the same run.
#
#   h0 (rack p*.t0.0) <==== 2 planes x 2 spines ====> h1 (rack p*.t0.1)
#
# Figures per side: payload packets/s and Gb/s over wall time, CPU seconds of the two
# processes (user + sys of each, from the shell's `times`: the kernel's forwarding through
# the fabric namespaces runs in softirq in the sending process and is charged to it), the
# same per CPU-second ("per core"), and mrcgen / baseline per core. Timings are printed,
# never asserted.
#
# usage: tclsh harness/bench/wire.tcl [--mrcgen PATH] [--rounds N] [--set K=V]...
# Exit 0 (also when skipped: not root, or no `ip netns`), 1 when a run failed.

package require Tcl 8.6
package require json

set ::top [file dirname [file dirname [file dirname [file normalize [info script]]]]]
set ::mrcgen [file join $::top mrcgen]
set rounds 1
set sets {}
source [file join $::top harness bench wirelib.tcl]
bench_options wire.tcl $argv {}
bench_need_root "wire bench" " (the simulator scenarios above still ran)"

source [file join $::top harness lib netns.tcl]

set conf [file join $::top harness bench wire.yaml]
set work [file join $::top harness out bench-wire-[pid]]
file mkdir $work
cd $work

proc row {name d} {
	set pps [expr {[dict get $d pkts] / [dict get $d wall]}]
	set gbps [expr {[dict get $d bytes] * 8 / [dict get $d wall] / 1e9}]
	set ppc [expr {[dict get $d pkts] / [dict get $d cpu]}]
	set gpc [expr {[dict get $d bytes] * 8 / [dict get $d cpu] / 1e9}]
	puts [format "%-10s %10d %8.3f %10.0f %7.2f %7.3f %10.0f %8.2f %10d" $name \
		[dict get $d pkts] [dict get $d wall] $pps $gbps [dict get $d cpu] $ppc $gpc \
		[dict get $d wire]]
	return $ppc
}

set status 0
if {[catch {
	set fab [netns::create $conf -sets $sets]
} msg]} {
	skip "cannot build the netns fabric: $msg"
}
if {[catch {
	puts "wire bench: [file tail $conf]: sendrecv h0 <-> h1 (different racks), 2 planes x\
		(2 T0 + 2 T1), 4096-byte payloads; [exec nproc] CPUs; $rounds round(s)"
	puts [format "%-10s %10s %8s %10s %7s %7s %10s %8s %10s" side payload_pk wall_s pps \
		Gb/s cpu_s pps/core Gb/s/core wire_pk]
	for {set r 1} {$r <= $rounds} {incr r} {
		set m [run_mrcgen $fab $conf $sets $r]
		# as many packets each way as the endpoint's first transmissions
		set b [run_blast $fab $conf $sets [expr {[dict get $m pkts] / 2}] $r]
		set pm [row mrcgen $m]
		set pb [row baseline $b]
		puts [format "round %d: mrcgen/baseline per core %.2f (mrcgen %d retransmitted,\
			%d SACKs; baseline %d socket drops)" $r [expr {$pm / $pb}] [dict get $m rtx] \
			[dict get $m sacks] [dict get $b drops]]
	}
} msg opts]} {
	puts stderr $msg
	set status 1
}
netns::destroy $fab
cd $::top
file delete -force $work
exit $status
