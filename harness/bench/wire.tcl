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
for {set i 0} {$i < [llength $argv]} {incr i} {
	set a [lindex $argv $i]
	set v [lindex $argv [incr i]]
	switch -- $a {
		--mrcgen { set ::mrcgen [file normalize $v] }
		--rounds { set rounds $v }
		--set { lappend sets $v }
		default {
			puts stderr "wire.tcl: option: unknown '$a'"
			exit 2
		}
	}
}

proc skip {why} {
	puts "wire bench: skipped: $why (the simulator scenarios above still ran)"
	exit 0
}

if {[exec id -u] ne "0"} {
	skip "needs root for network namespaces and raw sockets (sudo make bench)"
}
if {[catch {exec ip netns list} msg]} {
	skip "no `ip netns`: $msg"
}

source [file join $::top harness lib netns.tcl]

set conf [file join $::top harness bench wire.yaml]
set work [file join $::top harness out bench-wire-[pid]]
file mkdir $work
cd $work

# "0m1.234s 0m0.567s" (the children's line of `times`) -> seconds user + sys
proc times_cpu {text} {
	set lines [split [string trim $text] \n]
	set secs 0.0
	foreach f [lindex $lines end] {
		if {![regexp {^(\d+)m([\d.]+)s$} $f -> m s]} {
			error "wire bench: times: unexpected '$text'"
		}
		set secs [expr {$secs + $m * 60 + $s}]
	}
	return $secs
}

# Runs CMD (a list) in host H's namespace in the background under bash, its output in
# NAME.out/.err, then `times` into NAME.times and its exit status into NAME.rc.
proc start_in {fab h name cmd} {
	set q [join [lmap a [list ip netns exec [netns::ns $fab $h] {*}$cmd] {
		string cat ' [string map {' '\\''} $a] '
	}]]
	exec bash -c "$q >$name.out 2>$name.err; echo \$? >$name.rc; times >$name.times" &
}

proc wait_rc {names secs} {
	for {set i 0} {$i < $secs * 10} {incr i} {
		set done 1
		foreach n $names {
			if {![file exists $n.rc] || [string trim [read_all $n.rc]] eq ""} {
				set done 0
			}
		}
		if {$done} {
			return
		}
		after 100
	}
	error "wire bench: still running after $secs s: $names"
}

proc read_all {path} {
	set f [open $path]
	set t [read $f]
	close $f
	return $t
}

proc check_rc {names} {
	foreach n $names {
		set rc [string trim [read_all $n.rc]]
		if {$rc ne "0"} {
			error "wire bench: $n exited $rc: [read_all $n.err]"
		}
	}
}

# mrcgen's endpoint: the sendrecv job on h0 and h1; returns dict pkts bytes wall cpu wire.
proc run_mrcgen {fab conf sets tag} {
	set names {}
	foreach h {h0 h1} {
		set cmd [list $::mrcgen run $conf --host $h --rendezvous unix:[pwd]/rv-$tag.sock \
			--timeout-ms 30000 --set fabric.driver=wire -o [pwd]/out-$tag]
		foreach kv $sets {
			lappend cmd --set $kv
		}
		start_in $fab $h mrc-$tag-$h $cmd
		lappend names mrc-$tag-$h
	}
	wait_rc $names 300
	check_rc $names
	set rep [json::json2dict [read_all out-$tag/report.json]]
	set c [dict get $rep counters]
	set wall 0.0
	foreach it [dict get $rep iterations] {
		set wall [expr {$wall + [dict get $it cct_us] / 1e6}]
	}
	set cpu 0.0
	foreach n $names {
		set cpu [expr {$cpu + [times_cpu [read_all $n.times]]}]
	}
	return [dict create pkts [dict get $c data_pkts] bytes [dict get $c data_bytes] \
		wall $wall cpu $cpu wire [dict get $c packets_injected] \
		rtx [dict get $c rtx_pkts] sacks [dict get $c sacks]]
}

# The baseline: `mrcgen blast` both ways, PKTS packets each; same dict shape.
proc run_blast {fab conf sets pkts tag} {
	set start [expr {[clock microseconds] * 1000 + 1500000000}]
	set names {}
	foreach {h to} {h0 h1 h1 h0} {
		set cmd [list $::mrcgen blast $conf --host $h --to $to --packets $pkts \
			--start-ns $start]
		foreach kv $sets {
			lappend cmd --set $kv
		}
		start_in $fab $h blast-$tag-$h $cmd
		lappend names blast-$tag-$h
	}
	wait_rc $names 300
	check_rc $names
	set got 0
	set wall 0.0
	set cpu 0.0
	set drops 0
	foreach n $names {
		set line [string trim [read_all $n.out]]
		set kv [dict create]
		foreach f [lrange [split $line] 1 end] {
			lassign [split $f =] k v
			dict set kv $k $v
		}
		incr got [dict get $kv received]
		incr drops [dict get $kv sock_drops]
		set pay [dict get $kv payload_bytes]
		set wall [expr {max($wall, [dict get $kv recv_s])}]
		set cpu [expr {$cpu + [times_cpu [read_all $n.times]]}]
	}
	return [dict create pkts $got bytes [expr {$got * $pay}] wall $wall cpu $cpu \
		wire [expr {2 * $pkts}] drops $drops]
}

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
