# SPDX-License-Identifier: BSD-2-Clause
# wirelib.tcl: what the wire benchmarks share (wire.tcl, wire-xdp.tcl): a command in a
# host's namespace in the background with its output, exit status and `times`, the MRC
# sendrecv (`mrcgen run`) and the baseline (`mrcgen blast`) as dicts of pkts bytes wall
# cpu wire. Expects netns.tcl sourced and the working directory to be the bench's for the
# runs.

# Parses the bench's options (--mrcgen, --rounds, --set and those of EXTRA, a dict option
# -> variable name set in the caller's scope) from ARGV; exits 2 on an unknown one.
proc bench_options {name argv extra} {
	upvar 1 rounds rounds sets sets
	for {set i 0} {$i < [llength $argv]} {incr i} {
		set a [lindex $argv $i]
		set v [lindex $argv [incr i]]
		if {[dict exists $extra $a]} {
			upvar 1 [dict get $extra $a] x
			set x $v
			continue
		}
		switch -- $a {
			--mrcgen { set ::mrcgen [file normalize $v] }
			--rounds { set rounds $v }
			--set { lappend sets $v }
			default {
				puts stderr "$name: option: unknown '$a'"
				exit 2
			}
		}
	}
}

# Exits 0 saying why the bench cannot run here (WHO: "wire bench", NOTE: what still ran),
# unless it runs as root with `ip netns`.
proc bench_need_root {who note} {
	set why {}
	if {[exec id -u] ne "0"} {
		set why "needs root for network namespaces and raw or AF_XDP sockets (sudo)"
	} elseif {[catch {exec ip netns list} msg]} {
		set why "no `ip netns`: $msg"
	}
	if {$why ne ""} {
		puts "$who: skipped: $why$note"
		exit 0
	}
}

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

