# SPDX-License-Identifier: BSD-2-Clause
# wirerun.tcl: running `mrcgen run --set fabric.driver=wire` on the netns fabric of
# netns.tcl, one mrcgen per host namespace, for the tests that do (netns-run.test,
# xdp.test): netns.tcl's start_hosts and wait_hosts, the hosts' logs, rank 0's report,
# the traffic on a link, forged packets (mrcforge.py). Source netns.tcl first.

namespace import ::netns::start_hosts ::netns::wait_hosts

# Bytes both ends of link A-B have sent: the kernel's counters of its two interfaces.
proc link_tx {fab a b} {
	package require json
	lassign [dict get $fab links [netns::link_key $fab $a $b]] na ia nb ib
	set n 0
	foreach {node dev} [list $na $ia $nb $ib] {
		set l [json::json2dict [netns::ip $fab [netns::hostof $node] -s -j link show dev $dev]]
		incr n [dict get [lindex $l 0] stats64 tx bytes]
	}
	return $n
}

# Waits until data crosses p0.t0.0-p0.t1.1 (1 MiB of the ~120 MiB a run of 41 iterations
# of 4 MiB sends over it) with no host finished: the run's traffic is flowing, not over.
proc wait_traffic {fab} {
	wait_for_condition 3000 20 {[link_tx $fab p0.t0.0 p0.t1.1] > 1048576 ||
		[llength [glob -nocomplain rc.h*]] > 0} else {
		fail "no data over p0.t0.0-p0.t1.1\n[host_logs 4]"
	}
	assert_equal [glob -nocomplain rc.h*] {} "a host ended before the traffic flowed"
}

proc host_logs {nhosts} {
	set s ""
	for {set h 0} {$h < $nhosts} {incr h} {
		append s "--- h$h: [read_file out.h$h][read_file err.h$h]\n"
	}
	return $s
}

# Rank 0's report.json, checked against docs/schema/report-v1.schema.json (schema.test).
proc report {} {
	package require json
	assert_schema report out/report.json "the wire driver's report"
	return [json::json2dict [read_file out/report.json]]
}

# Every iteration of every size: #wrong 0, and the run's counters say data moved.
proc check_clean {rep nranks} {
	assert_equal [dict get $rep error] null "report error"
	set iters [dict get $rep iterations]
	assert_true [expr {[llength $iters] > 0}] "iterations listed"
	foreach it $iters {
		assert_equal [dict get $it wrong] 0 "#wrong of iteration [dict get $it iter]"
	}
	foreach s [dict get $rep sizes] {
		assert_equal [dict get $s wrong] 0 "#wrong of size [dict get $s bytes]"
		assert_true [expr {[dict get $s time_us] > 0}] "time of size [dict get $s bytes]"
	}
}


# ---- hostile packets at a rank: harness/lib/mrcforge.py builds them (EV format srv6,
# ICRC and UDP checksum filled) and sends them from a host's namespace on a uSID path of
# `mrcgen paths --json`. Inner addresses are fd00::PLANE:HOST:1 (docs/wire-format.md), and
# rank r's QP to peer q is QPN q + 1 below r, q above it (mrc/wire/pump.c).

set ::forge [file join $::top harness lib mrcforge.py]

# The path dict of `mrcgen paths CONF --json` from host FROM to host TO on EV (0x%08x).
proc path_of {conf from to ev} {
	package require json
	foreach p [dict get [json::json2dict [exec $::mrcgen paths $conf --json]] paths] {
		if {[dict get $p src] eq $from && [dict get $p dst] eq $to &&
			[dict get $p ev] eq $ev} {
			return $p
		}
	}
	error "no path $from -> $to on $ev"
}

# Runs `mrcforge.py ARGS` in host HOST's namespace; returns its output.
proc forge {fab host args} {
	return [exec ip netns exec [netns::ns $fab $host] python3 $::forge {*}$args]
}

# Sends, from host HOST's namespace along PATH (a path_of dict), COUNT rounds of one
# packet per EV of EVS from inner address SRC to DST, the rest of the spec (mrcforge.py
# send) in the dict SPEC; returns how many it sent.
proc forge_send {fab host path src dst evs count spec} {
	dict set spec container [dict get $path container]
	dict set spec outer_src [dict get $path src_addr]
	dict set spec src $src
	dict set spec dst $dst
	dict set spec count $count
	set kv {}
	dict for {k v} $spec {
		lappend kv [format {"%s": %s} $k [expr {[string is integer -strict $v] ? $v :
			"\"$v\""}]]
	}
	lappend kv "\"evs\": \[\"[join $evs {", "}]\"\]"
	set f spec.[clock clicks]
	write_file $f "{[join $kv {, }]}"
	assert_true [regexp {sent (\d+)} [forge $fab $host send $f] -> n] "mrcforge send"
	return $n
}

# The counters of report.json, after every host exited 0 with every iteration right.
proc hostile_end {pids} {
	set rcs [wait_hosts $pids 4]
	set logs [host_logs 4]
	dict for {h rc} $rcs {
		assert_equal $rc 0 "exit status of $h\n$logs"
	}
	set rep [report]
	check_clean $rep 4
	assert_equal [llength [dict get $rep iterations]] 41
	return $rep
}

