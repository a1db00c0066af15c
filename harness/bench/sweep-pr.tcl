# SPDX-License-Identifier: BSD-2-Clause
# sweep-pr.tcl: precision and recall of `mrcgen sweep`'s suspects (`make sweep-pr`, by hand,
# never part of `make test`; docs/sweep.md "How well it localises") — random single- and
# double-fault scenarios on the quickstart fabric (8 planes x (4 T0 + 4 T1), 32 hosts),
# each a simulated sweep with the config's defaults, its suspects compared with the faults
# injected (which the inference never sees).
#
# A fault is drawn among: a link down (T0-T1 or host link), a link losing 1, 2, 5, 10 or 20%
# both ways or one way, a T0 blackholing its route to a T1 or a host, a T1 blackholing its
# route to a T0 (one way each), a T1 or a T0 down; the two faults of a double scenario on
# different elements. A suspect is right when it names a faulted element (a link in either
# order, a switch), also when that element is only among the suspect's `alike` ones; the
# direction is scored apart, over the one-way faults named. Precision: right suspects /
# suspects; recall: faults named / faults; "top": the faults named by the first N suspects
# of a scenario of N faults.
#
# usage: tclsh harness/bench/sweep-pr.tcl [--mrcgen PATH] [--runs N] [--seed S] [--set K=V]...
# Prints one line per kind and scenario size, then the totals. Exit 1 when a sweep failed.

package require Tcl 8.6
package require json

set ::top [file dirname [file dirname [file dirname [file normalize [info script]]]]]
set ::mrcgen [file join $::top mrcgen]
set runs 100
set seed 1
set sets {}
for {set i 0} {$i < [llength $argv]} {incr i} {
	set a [lindex $argv $i]
	set v [lindex $argv [incr i]]
	switch -- $a {
		--mrcgen { set ::mrcgen [file normalize $v] }
		--runs { set runs $v }
		--seed { set seed $v }
		--set { lappend sets $v }
		default {
			puts stderr "usage: tclsh harness/bench/sweep-pr.tcl \[--mrcgen PATH\]\
				\[--runs N\] \[--seed S\] \[--set K=V\]..."
			exit 2
		}
	}
}
expr {srand($seed)}

set P 8
set T0 4
set T1 4
set HPT0 8

proc pick {n} {
	return [expr {int(rand() * $n)}]
}

# A random fault: {kind yaml element direction}; element as a suspect names it (a link
# lower tier first), direction forward/reverse in that order, or "" for both ways.
proc draw_fault {} {
	global P T0 T1 HPT0
	set p [pick $P]
	set i [pick $T0]
	set j [pick $T1]
	set h [expr {$i * $HPT0 + [pick $HPT0]}]
	set fab "p$p.t0.$i-p$p.t1.$j"
	set host "h$h.p$p-p$p.t0.$i"
	set rate [lindex {0.01 0.02 0.05 0.1 0.2} [pick 5]]
	set link [expr {[pick 2] ? $fab : $host}]
	switch [pick 8] {
		0 { return [list down "{at: 0, target: $link, action: down}" $link ""] }
		1 - 2 {
			return [list "loss $rate" \
				"{at: 0, target: $link, action: loss, rate: $rate}" $link ""]
		}
		3 {
			set d [lindex {forward reverse} [pick 2]]
			return [list "loss $rate one way" "{at: 0, target: $link, action: loss,\
				rate: $rate, direction: $d}" $link $d]
		}
		4 {
			if {[pick 2]} {
				return [list blackhole "{at: 0, target: $fab, action: blackhole}" \
					$fab forward]
			}
			return [list blackhole "{at: 0, target: p$p.t1.$j-p$p.t0.$i,\
				action: blackhole}" $fab reverse]
		}
		5 {
			return [list blackhole "{at: 0, target: p$p.t0.$i-h$h.p$p,\
				action: blackhole}" $host reverse]
		}
		6 { return [list "switch down" "{at: 0, target: p$p.t1.$j, action: down}" \
			p$p.t1.$j ""] }
		7 { return [list "switch down" "{at: 0, target: p$p.t0.$i, action: down}" \
			p$p.t0.$i ""] }
	}
}

# Is the fault's element named by suspect S (or among its alike)?
proc names {s elem} {
	set n [expr {[dict exists $s switch] ? [dict get $s switch] : [dict get $s link]}]
	return [expr {$n eq $elem || $elem in [dict get $s alike]}]
}

proc sweep {faults} {
	set dir [file join [pwd] build sweep-pr]
	file mkdir $dir
	set cmd [list $::mrcgen sweep [file join $::top conf examples quickstart.yaml] -o $dir \
		--set output.plots=false --set output.captures=\[\] \
		--set "faults=\[[join [lmap f $faults {lindex $f 1}] ,]\]"]
	foreach kv $::sets {
		lappend cmd --set $kv
	}
	if {[catch {exec {*}$cmd >/dev/null 2>@stderr} out opts]} {
		set code [lindex [dict get $opts -errorcode] end]
		if {[lindex [dict get $opts -errorcode] 0] ne "CHILDSTATUS" || $code != 1} {
			puts stderr "sweep-pr: $cmd: $out"
			exit 1
		}
	}
	set f [open $dir/sweep.json]
	set j [json::json2dict [read $f]]
	close $f
	return [dict get $j suspects]
}

# stats: per key {scenarios faults named top suspects right dir_faults dir_right}
set stats {}
proc add {key args} {
	global stats
	if {![dict exists $stats $key]} {
		dict set stats $key {0 0 0 0 0 0 0 0}
	}
	set v [dict get $stats $key]
	for {set k 0} {$k < 8} {incr k} {
		lset v $k [expr {[lindex $v $k] + [lindex $args $k]}]
	}
	dict set stats $key $v
}

foreach nf {1 2} {
	for {set r 0} {$r < $runs} {incr r} {
		set faults [list [draw_fault]]
		while {[llength $faults] < $nf} {
			set f [draw_fault]
			if {[lindex $f 2] ne [lindex $faults 0 2]} {
				lappend faults $f
			}
		}
		set sus [sweep $faults]
		set right 0
		foreach s $sus {
			foreach f $faults {
				if {[names $s [lindex $f 2]]} {
					incr right
					break
				}
			}
		}
		foreach f $faults {
			set named 0
			set first 0
			set dirf 0
			set dirok 0
			foreach s $sus {
				if {[names $s [lindex $f 2]]} {
					set named 1
					if {[lindex $f 3] ne ""} {
						set dirf 1
						set d [expr {[dict exists $s direction] ?
							[dict get $s direction] : ""}]
						set dirok [expr {$d eq [lindex $f 3]}]
					}
					break
				}
			}
			foreach s [lrange $sus 0 [expr {$nf - 1}]] {
				if {[names $s [lindex $f 2]]} {
					set first 1
				}
			}
			add "$nf [lindex $f 0]" 0 1 $named $first 0 0 $dirf $dirok
		}
		add "$nf all" 1 $nf 0 0 [llength $sus] $right 0 0
	}
}

puts [format "%-28s %9s %7s %7s" "faults, kind" "faults" "recall" "top-N"]
dict for {k v} [lsort -stride 2 -index 0 $stats] {
	lassign $v sc f named first
	if {[string match "* all" $k]} {
		continue
	}
	puts [format "%-28s %9d %6.1f%% %6.1f%%" $k $f [expr {100.0 * $named / $f}] \
		[expr {100.0 * $first / $f}]]
}
foreach nf {1 2} {
	lassign [dict get $stats "$nf all"] sc f
	set named 0
	set first 0
	set df 0
	set dok 0
	dict for {k v} $stats {
		if {[lindex $k 0] == $nf && ![string match "* all" $k]} {
			incr named [lindex $v 2]
			incr first [lindex $v 3]
			incr df [lindex $v 6]
			incr dok [lindex $v 7]
		}
	}
	lassign [dict get $stats "$nf all"] - - - - nsus right
	puts [format "%d-fault scenarios: %d; precision %.1f%% (%d/%d suspects), recall %.1f%%\
		(%d/%d faults), top-%d %.1f%%, direction %.1f%% (%d/%d one-way faults named)" \
		$nf $sc [expr {$nsus ? 100.0 * $right / $nsus : 100}] $right $nsus \
		[expr {100.0 * $named / $f}] $named $f $nf [expr {100.0 * $first / $f}] \
		[expr {$df ? 100.0 * $dok / $df : 100}] $dok $df]
}
