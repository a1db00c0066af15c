#!/usr/bin/env tclsh
# SPDX-License-Identifier: BSD-2-Clause
# run.tcl: mutation testing (`make mutate`). Applies each mutant of harness/mutate/mutants.txt
# (the list's header says its format) to a scratch copy of the tree, rebuilds it, runs the
# tests the mutant names and prints "killed" or "SURVIVED" for it. Exit status 1 when a
# mutant survived, its snippet is not in its file exactly once (the list went stale), or it
# does not build; 0 when every mutant was killed.
#
# usage: tclsh harness/mutate/run.tcl [--list FILE] [--dir DIR] [--keep] [--jobs N] [ID...]
#   --list FILE  the mutant list (default harness/mutate/mutants.txt)
#   --dir DIR    scratch directory (default build/mutate); emptied first
#   --keep       keep each mutant's tree and logs (DIR/ID/)
#   --jobs N     mutants built and tested at once (default: the number of CPUs); each is
#                its own copy of the tree, so they share nothing but the base copy
#   ID...        run only these mutants (the whole list is still checked)
#
# The working tree is only read: the tracked and untracked-not-ignored files are copied
# (git ls-files) to DIR/base with the already built build/rel, mrcgen and mrcgen-test
# (`make mutate` builds them first), so that each mutant rebuilds only what its file reaches.

package require Tcl 8.6

set top [file dirname [file dirname [file dirname [file normalize [info script]]]]]
set list [file join $top harness mutate mutants.txt]
set dir [file join $top build mutate]
set keep 0
set only {}
set jobs [exec nproc]
set worker ""	;# "K/N": a child of the run, given the mutants K, K+N, K+2N... (internal)
for {set i 0} {$i < [llength $argv]} {incr i} {
	set a [lindex $argv $i]
	switch -- $a {
		--list { set list [file normalize [lindex $argv [incr i]]] }
		--dir { set dir [file normalize [lindex $argv [incr i]]] }
		--keep { set keep 1 }
		--jobs { set jobs [lindex $argv [incr i]] }
		--worker { set worker [lindex $argv [incr i]] }
		-h - --help {
			puts "usage: tclsh harness/mutate/run.tcl \[--list FILE\] \[--dir DIR\] \[--keep\]\
				\[--jobs N\] \[ID...\]"
			exit 0
		}
		default {
			if {[string match -* $a]} {
				puts stderr "mutate: unknown option '$a'"
				exit 2
			}
			lappend only $a
		}
	}
}
if {![string is integer -strict $jobs] || $jobs < 1} {
	puts stderr "mutate: --jobs '$jobs': not a whole number of at least 1"
	exit 2
}

# The bytes of @path, as they are.
proc slurp {path} {
	set f [open $path rb]
	try {
		return [read $f]
	} finally {
		close $f
	}
}

# ---- the list ----------------------------------------------------------------------------
# Records of "key value" lines, blank lines between records, # comments. The value is the
# rest of the line after the key and one run of blanks; in from/to, \t and \n are a tab and
# a newline and \\ is a backslash (Tcl backslash substitution).
proc parse {path} {
	set text [slurp $path] ;# bytes, as the sources are read: snippets match byte for byte
	set muts {}
	set cur {}
	set ln 0
	foreach line [split $text \n] {
		incr ln
		if {[string match "#*" [string trimleft $line]]} {
			continue
		}
		if {[string trim $line] eq ""} {
			if {[dict size $cur]} {
				lappend muts $cur
				set cur {}
			}
			continue
		}
		if {![regexp {^(\w+)[ \t]+(.*)$} $line -> k v]} {
			error "$path:$ln: not a 'key value' line: $line"
		}
		if {$k ni {id file rule from to tcl}} {
			error "$path:$ln: unknown key '$k'"
		}
		if {$k in {from to}} {
			set v [subst -nocommands -novariables $v]
		}
		if {![dict size $cur]} {
			dict set cur line $ln
		}
		dict set cur $k $v
	}
	if {[dict size $cur]} {
		lappend muts $cur
	}
	set ids {}
	foreach m $muts {
		foreach k {id file rule from to} {
			if {![dict exists $m $k]} {
				error "$path:[dict get $m line]: mutant without '$k'"
			}
		}
		if {[dict get $m id] in $ids} {
			error "$path:[dict get $m line]: id '[dict get $m id]' twice"
		}
		lappend ids [dict get $m id]
	}
	return $muts
}

proc count {hay needle} {
	set n 0
	set at 0
	while {[set at [string first $needle $hay $at]] >= 0} {
		incr n
		incr at
	}
	return $n
}

if {[catch {parse $list} muts]} {
	puts stderr "mutate: $muts"
	exit 2
}

# Every mutant's snippet must be in its file exactly once, and its replacement differ.
set stale 0
foreach m $muts {
	set path [file join $top [dict get $m file]]
	if {![file exists $path]} {
		puts "[dict get $m id]: STALE: no file [dict get $m file]"
		incr stale
		continue
	}
	set n [count [slurp $path] [dict get $m from]]
	if {$n != 1} {
		puts "[dict get $m id]: STALE: its snippet is in [dict get $m file] $n times, not once"
		incr stale
	}
	if {[dict get $m from] eq [dict get $m to]} {
		puts "[dict get $m id]: STALE: replacement equals the snippet"
		incr stale
	}
}
set ids [lmap m $muts {dict get $m id}]
foreach id $only {
	if {$id ni $ids} {
		puts stderr "mutate: no mutant '$id'"
		exit 2
	}
}
if {$stale} {
	puts "mutate: $stale mutant(s) stale: fix $list"
	exit 1
}
foreach b {mrcgen mrcgen-test build/rel} {
	if {![file exists [file join $top $b]]} {
		puts stderr "mutate: no $b: build first (make mrcgen mrcgen-test)"
		exit 2
	}
}

# ---- the base copy -----------------------------------------------------------------------
# DIR is emptied: never the tree or a folder holding it
if {$dir eq $top || [string first "$dir/" "$top/"] == 0} {
	puts stderr "mutate: --dir $dir holds the tree"
	exit 2
}
set base [file join $dir base]
cd $top
if {$worker eq ""} {
	file delete -force $dir
	file mkdir $dir
	file mkdir $base
	exec sh -c {git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh | \
		tar --null -T - -cf - | tar -xf - -C "$1"} sh $base
	file mkdir [file join $base build]
	exec cp -a build/rel [file join $base build rel]
	exec cp -a mrcgen mrcgen-test $base
}

# Runs a shell command in @wd with its output to @log; returns its exit status.
proc sh {wd log cmd} {
	set rc [catch {exec sh -c "cd '$wd' && { $cmd ; } >>'$log' 2>&1"} out opts]
	if {!$rc} {
		return 0
	}
	set ec [dict get $opts -errorcode]
	if {[lindex $ec 0] eq "CHILDSTATUS"} {
		return [lindex $ec 2]
	}
	return 1
}

proc now {} {
	return [clock milliseconds]
}

# The base itself must build as is and pass (else every mutant would look killed).
set t0 [now]
set ncpu [exec nproc]
set blog [file join $dir base.log]
if {$worker eq "" && [sh $base $blog "make -j$ncpu mrcgen mrcgen-test >/dev/null &&
		./mrcgen-test >/dev/null"]} {
	puts "mutate: the unmutated copy fails its unit tests or does not build: see $blog"
	exit 1
}

set modules [split [string trim [exec [file join $base mrcgen-test] --list]] \n]

# The mutants this process runs: all of them, the selected ones, or a worker's share.
set mine {}
foreach m $muts {
	if {![llength $only] || [dict get $m id] in $only} {
		lappend mine $m
	}
}
if {$worker ne ""} {
	lassign [split $worker /] wk wn
	set share {}
	for {set i $wk} {$i < [llength $mine]} {incr i $wn} {
		lappend share [lindex $mine $i]
	}
	set mine $share
}
set mjobs [expr {max(1, $ncpu / min($jobs, max(1, [llength $mine])))}]

# With several jobs, the parent runs a worker process per job (this script with --worker
# K/N, on the base copy made above) and passes their lines through as they come.
if {$worker eq "" && $jobs > 1 && [llength $mine] > 1} {
	set nw [expr {min($jobs, [llength $mine])}]
	set left $nw
	set tally [dict create killed 0 survived {} broken {}]
	proc relay {ch} {
		global left tally
		if {[gets $ch line] >= 0} {
			if {[regexp {^mutate-worker: (\d+) \{(.*)\} \{(.*)\}$} $line -> k s b]} {
				dict incr tally killed $k
				dict lappend tally survived {*}$s
				dict lappend tally broken {*}$b
			} else {
				puts $line
				flush stdout
			}
			return
		}
		if {[catch {close $ch} err]} {
			puts "mutate: a worker failed: $err"
			dict lappend tally broken worker
		}
		incr left -1
	}
	for {set k 0} {$k < $nw} {incr k} {
		set cmd [list [info nameofexecutable] [info script] --list $list --dir $dir \
			--jobs $nw --worker $k/$nw]
		if {$keep} {
			lappend cmd --keep
		}
		set ch [open |[concat $cmd [lmap m $mine {dict get $m id}] [list 2>@1]] r]
		fconfigure $ch -blocking 0 -buffering line
		fileevent $ch readable [list relay $ch]
	}
	while {$left > 0} {
		vwait left
	}
	set killed [dict get $tally killed]
	set survived [dict get $tally survived]
	set broken [dict get $tally broken]
	set ran [llength $mine]
	if {!$keep} {
		file delete -force $base
	}
	puts [format "mutate: %d killed, %d survived, %d broken of %d in %.0fs (%d jobs)" \
		$killed [llength $survived] [llength $broken] $ran \
		[expr {([now] - $t0) / 1000.0}] $nw]
	if {[llength $survived] || [llength $broken]} {
		puts "mutate: survived: $survived; broken: $broken (logs in $dir)"
		exit 1
	}
	exit 0
}

set killed 0
set survived {}
set broken {}
set ran 0
foreach m $mine {
	set id [dict get $m id]
	incr ran
	set t1 [now]
	set wd [file join $dir $id]
	set log [file join $dir $id.log]
	exec cp -a $base $wd
	set path [file join $wd [dict get $m file]]
	set src [slurp $path]
	set at [string first [dict get $m from] $src]
	set src [string replace $src $at [expr {$at + [string length [dict get $m from]] - 1}] \
		[dict get $m to]]
	set f [open $path wb]
	puts -nonewline $f $src
	close $f
	set targets mrcgen-test
	if {[dict exists $m tcl]} {
		lappend targets mrcgen
	}
	set verdict SURVIVED
	set how ""
	# -O1 without -g: the mutated file compiles about 4x faster than the base's -O3 -g
	if {[sh $wd $log "make -j$mjobs CFLAGS=-O1 $targets"]} {
		set verdict BROKEN
		set how "does not build"
	} else {
		# module by module, stopping at the first that fails, the mutated file's own
		# module (mrc/engine/qp.c: qp) first, as it is the likeliest to: a mutant that
		# makes one module hang (a PSN that never wraps) is caught by a quicker one first
		set own [file rootname [file tail [dict get $m file]]]
		set order $::modules
		if {[set at [lsearch -exact $order $own]] >= 0} {
			set order [linsert [lreplace $order $at $at] 0 $own]
		}
		set rc 0
		foreach mod $order {
			set rc [sh $wd $log "timeout 20 ./mrcgen-test $mod"]
			if {$rc} {
				set verdict killed
				set how "mrcgen-test $mod: exit $rc"
				break
			}
		}
		if {!$rc && [dict exists $m tcl]} {
			set rc [sh $wd $log "MRCGEN_TIMEOUT=60 tclsh harness/run.tcl --mrcgen ./mrcgen\
				--outdir '$wd/tclout' [dict get $m tcl]"]
			if {$rc} {
				set verdict killed
				set how "Tcl [dict get $m tcl]"
			}
		}
	}
	switch $verdict {
		killed { incr killed }
		SURVIVED { lappend survived $id }
		BROKEN { lappend broken $id }
	}
	puts [format "%-26s %-8s %5.1fs  %s%s" $id $verdict [expr {([now] - $t1) / 1000.0}] \
		[dict get $m rule] [expr {$how eq "" ? "" : " ($how)"}]]
	flush stdout
	if {!$keep} {
		file delete -force $wd
		if {$verdict eq "killed"} {
			file delete $log
		}
	}
}
if {$worker ne ""} {
	puts "mutate-worker: $killed {$survived} {$broken}"
	exit 0
}
if {!$keep} {
	file delete -force $base
}
puts [format "mutate: %d killed, %d survived, %d broken of %d in %.0fs" $killed \
	[llength $survived] [llength $broken] $ran [expr {([now] - $t0) / 1000.0}]]
if {[llength $survived] || [llength $broken]} {
	puts "mutate: survived: $survived; broken: $broken (logs in $dir)"
	exit 1
}
exit 0
