#!/usr/bin/env tclsh
# SPDX-License-Identifier: BSD-2-Clause
# run.tcl: the Tcl test runner — sources each harness/tests/*.test in its own interpreter.
#
# usage: tclsh harness/run.tcl [--single FILE]... [--only GLOB] [--tags LIST] [--slow]
#        [--junit FILE] [--keep] [--mrcgen PATH] [--outdir DIR] [--timeout SECS] [--verbose]
#        [--jobs N]
# Prints one line per test, then a "failed: FILE: NAME: FIRST LINE" recap of each failure
# and, last, "N passed, N failed, N skipped". Exit status 1 when a
# test failed or no test ran, 0 otherwise.
#
# With --jobs N, N files run at once, each in a child runner (this script with --single
# FILE and the internal --results PATH, where it leaves its results for the parent); a
# file's lines print when it ends. Files whose header says "# lane: wire" (real packets in
# network namespaces, timed by the wall clock) run alone, one at a time; the others N at once.

package require Tcl 8.6

set harness_dir [file dirname [file normalize [info script]]]
set ::top [file dirname $harness_dir]

proc usage {{code 2}} {
	set chan [expr {$code == 0 ? "stdout" : "stderr"}]
	puts $chan "usage: tclsh harness/run.tcl \[options\]
  --single FILE   run only this test file (repeatable)
  --only GLOB     run only tests whose name matches GLOB
  --tags LIST     run only tests having one of these tags; -TAG leaves out tests tagged TAG
  --slow          also run tests tagged slow (or MRCGEN_SLOW=1)
  --junit FILE    write JUnit XML results to FILE
  --keep          keep the directories of passed tests too
  --mrcgen PATH   the binary under test (default: TOP/mrcgen)
  --outdir DIR    where per-test directories go (default: TOP/harness/out/run-...)
  --timeout SECS  default limit for each mrcgen child process (default 300)
  --verbose       print each command mrcgen ran, its output and each test's duration
  --jobs N        run N test files at once (default 1); \"# lane: wire\" files alone"
	exit $code
}

# --- options ---------------------------------------------------------------------------
set opt [dict create singles {} only * tags {} slow 0 junit {} keep 0 \
	mrcgen [file join $::top mrcgen] outdir {} timeout 300 verbose 0 jobs 1 results {}]
if {[info exists env(MRCGEN_SLOW)] && $env(MRCGEN_SLOW) eq "1"} {
	dict set opt slow 1
}
if {[info exists env(MRCGEN_TIMEOUT)]} {
	dict set opt timeout $env(MRCGEN_TIMEOUT)
}
for {set i 0} {$i < [llength $argv]} {incr i} {
	set a [lindex $argv $i]
	switch -- $a {
		--single - --only - --tags - --junit - --mrcgen - --outdir - --timeout - --jobs -
		--results {
			# Each of these takes a value.
			if {$i + 1 >= [llength $argv]} {
				puts stderr "run.tcl: $a: missing value"
				usage
			}
			set v [lindex $argv [incr i]]
			switch -- $a {
				--single { dict lappend opt singles $v }
				--tags { dict lappend opt tags {*}[split $v ", "] }
				default { dict set opt [string range $a 2 end] $v }
			}
		}
		--slow - --keep - --verbose { dict set opt [string range $a 2 end] 1 }
		-h - --help { usage 0 }
		default {
			puts stderr "run.tcl: option: unknown '$a'"
			usage
		}
	}
}
dict set opt tags [lsearch -all -inline -not -exact [dict get $opt tags] {}]
set t [dict get $opt timeout]
if {![string is double -strict $t] || $t <= 0} {
	puts stderr "run.tcl: --timeout: not a positive number of seconds '$t'"
	exit 2
}
if {![string is integer -strict [dict get $opt jobs]] || [dict get $opt jobs] < 1} {
	puts stderr "run.tcl: --jobs: not a positive number of files at once '[dict get $opt jobs]'"
	exit 2
}

set ::mrcgen [file normalize [dict get $opt mrcgen]]
if {![file executable $::mrcgen]} {
	puts stderr "run.tcl: mrcgen: no executable at '$::mrcgen' (run make, or give --mrcgen)"
	exit 1
}

if {[llength [dict get $opt singles]] > 0} {
	set files {}
	foreach f [dict get $opt singles] {
		if {![file isfile $f]} {
			puts stderr "run.tcl: --single: no such file '$f'"
			exit 2
		}
		lappend files [file normalize $f]
	}
} else {
	set files [lsort [glob -nocomplain -directory [file join $harness_dir tests] *.test]]
}

set outdir [dict get $opt outdir]
if {$outdir eq ""} {
	set base [file join $harness_dir out]
	if {[catch {file mkdir $base}] || ![file writable $base]} {
		set base [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}]
	}
	set outdir [file join $base [clock format [clock seconds] -format run-%Y%m%d-%H%M%S]-[pid]]
}
set outdir [file normalize $outdir]
file mkdir $outdir

set uid [exec id -u]

# --- results ---------------------------------------------------------------------------
set counts [dict create passed 0 failed 0 skipped 0]
set results {}		;# list of dicts for JUnit: status file name msg secs dir

proc indent {text} {
	return [join [lmap l [split [string trimright $text \n] \n] {string cat "    " $l}] \n]
}

# Called from the test interpreters (alias ::harness::record).
proc record {status file name msg secs dir} {
	global counts results opt
	lappend results [dict create status $status file $file name $name msg $msg secs $secs]
	if {[dict get $opt results] ne ""} { ;# a child runner: each record at once, for the
		set ch [open [dict get $opt results] a] ;# parent, even if this process dies later
		puts $ch [list [lindex $results end]]
		close $ch
	}
	set time [expr {[dict get $opt verbose] ? [format " (%.2f s)" $secs] : ""}]
	switch -- $status {
		ok {
			dict incr counts passed
			puts "\[ok\] $file: $name$time"
		}
		skip {
			dict incr counts skipped
			puts "\[skip\] $file: $name ($msg)"
		}
		default {
			dict incr counts failed
			puts "\[FAIL\] $file: $name$time"
			puts [indent $msg]
		}
	}
	if {$dir ne "" && $status ne "ok"} {
		puts "    artifacts kept: $dir"
	} elseif {$dir ne "" && [dict get $opt verbose]} {
		puts "    kept: $dir"
	}
	flush stdout
}

proc no_exit {args} {
	error "exit: not allowed in a test file (use skip, fail or an assert)"
}

# --- run files in child runners, N at once (--jobs) --------------------------------------
# True when FILE's header (its leading comment lines) says "# lane: wire".
proc wire_lane {file} {
	set ch [open $file]
	set wire 0
	while {[gets $ch l] >= 0 && [string match "#*" $l]} {
		if {[regexp {^#\s*lane:\s*wire\s*$} $l]} {
			set wire 1
		}
	}
	close $ch
	return $wire
}

# Starts a child runner on FILE; its output is gathered until it ends (child_read).
proc child_start {file} {
	global opt outdir children
	set name [file tail $file]
	set res [file join $outdir $name.results]
	file delete $res
	set argv [list [info nameofexecutable] [info script] --single $file --results $res \
		--outdir [file join $outdir $name] --mrcgen $::mrcgen --only [dict get $opt only] \
		--timeout [dict get $opt timeout]]
	foreach k {slow keep verbose} {
		if {[dict get $opt $k]} {
			lappend argv --$k
		}
	}
	if {[llength [dict get $opt tags]]} {
		lappend argv --tags [join [dict get $opt tags] ,]
	}
	set ch [open |[concat $argv [list 2>@1]] r]
	fconfigure $ch -blocking 0 -translation lf
	dict set children $ch [dict create file $file res $res out "" wire [dict get $::lane $file]]
	fileevent $ch readable [list child_read $ch]
}

proc child_read {ch} {
	global children
	if {[catch {
		dict with children $ch {
			append out [read $ch]
		}
	}] || [eof $ch]} {
		child_end $ch
	}
}

# A child runner ended: its output, then its results (each record a line of the results
# file: a child that died midway still gives what it ran), into the counts.
proc child_end {ch} {
	global children results counts
	fconfigure $ch -blocking 1
	set rc [catch {close $ch} err]
	set c [dict get $children $ch]
	dict unset children $ch
	incr ::running -1
	set ::child_done 1
	puts -nonewline [dict get $c out]
	set got {}
	if {![catch {open [dict get $c res]} rch]} {
		# a record is a one-element list over one or more lines (a failure's message has
		# newlines): lines gather until they make a complete one; a record cut short by the
		# child's death never completes and is left out
		set buf ""
		foreach line [split [read $rch] \n] {
			append buf $line \n
			if {![info complete $buf]} {
				continue
			}
			if {![catch {llength $buf} n] && $n == 1 && ![catch {dict size [lindex $buf 0]}]} {
				lappend got [lindex $buf 0]
			}
			set buf ""
		}
		close $rch
		file delete [dict get $c res]
	}
	foreach r $got {
		lappend results $r
		dict incr counts [dict get {ok passed skip skipped fail failed error failed} \
			[dict get $r status]]
	}
	if {$rc} {
		set msg "the child runner failed (after [llength $got] results): $err"
		lappend results [dict create status error file [file tail [dict get $c file]] \
			name "(running the file)" msg $msg secs 0]
		dict incr counts failed
		puts "\[FAIL\] [file tail [dict get $c file]]: (running the file)\n[indent $msg]"
	}
	flush stdout
}

# Runs FILES N at once, wire-lane files one at a time; fills results and counts.
proc run_parallel {files n} {
	global children
	set children [dict create]
	set wire {}
	set rest {}
	foreach f $files {
		dict set ::lane $f [wire_lane $f]
		if {[dict get $::lane $f]} {
			lappend wire $f
		} else {
			lappend rest $f
		}
	}
	set ::running 0
	while {[llength $wire] || [llength $rest] || $::running} {
		set wire_busy 0
		dict for {ch c} $children {
			if {[dict get $c wire]} {
				set wire_busy 1
			}
		}
		if {$::running == 0 && [llength $wire]} {
			child_start [lindex $wire 0]
			set wire [lrange $wire 1 end]
			incr ::running
			continue
		}
		if {$::running < $n && [llength $rest] && !$wire_busy} {
			child_start [lindex $rest 0]
			set rest [lrange $rest 1 end]
			incr ::running
			continue
		}
		vwait ::child_done
	}
}

# --- run every file in its own interpreter ---------------------------------------------
set here [pwd]
set t_start [clock milliseconds]
set nfiles [llength $files]
if {[dict get $opt jobs] > 1 && [llength $files] > 1} {
	run_parallel $files [dict get $opt jobs]
	set nfiles [llength $files]
	set files {}
}
foreach file $files {
	set name [file tail $file]
	set cfg [dict create file $name outdir $outdir uid $uid]
	foreach k {keep verbose only tags slow timeout} {
		dict set cfg $k [dict get $opt $k]
	}
	set i [interp create]
	$i hide exit
	interp alias $i exit {} no_exit
	interp alias $i ::harness::record {} record
	$i eval [list set ::top $::top]
	$i eval [list set ::mrcgen $::mrcgen]
	$i eval [list namespace eval ::harness [list variable cfg $cfg]]
	set libs [lsort [glob -nocomplain -directory [file join $harness_dir lib] *.tcl]]
	set util [file join $harness_dir lib util.tcl]
	set libs [linsert [lsearch -all -inline -not -exact $libs $util] 0 $util]
	if {[catch {
		foreach lib $libs {
			$i eval [list source $lib]
		}
		$i eval [list source $file]
	} msg opts]} {
		record error $name "(loading the file)" [dict get $opts -errorinfo] 0 {}
	}
	interp delete $i
	cd $here
}

# --- JUnit XML -------------------------------------------------------------------------
proc xml {s} {
	# XML 1.0 allows no control characters but tab, newline and carriage return.
	set s [regsub -all {[\x00-\x08\x0b\x0c\x0e-\x1f]} $s ?]
	return [string map {& &amp; < &lt; > &gt; \" &quot; ' &apos;} $s]
}

proc write_junit {path} {
	global results t_start
	set byfile [dict create]
	foreach r $results {
		dict lappend byfile [dict get $r file] $r
	}
	set x "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	append x [format "<testsuites name=\"mrcgen\" time=\"%.3f\">\n" \
		[expr {([clock milliseconds] - $t_start) / 1000.0}]]
	dict for {file rs} $byfile {
		set n [llength $rs]
		set f [llength [lsearch -all -index 1 -exact $rs fail]]
		set e [llength [lsearch -all -index 1 -exact $rs error]]
		set s [llength [lsearch -all -index 1 -exact $rs skip]]
		set secs 0.0
		foreach r $rs {
			set secs [expr {$secs + [dict get $r secs]}]
		}
		append x [format "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\"\
			errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n" \
			[xml $file] $n $f $e $s $secs]
		foreach r $rs {
			set cls [xml [file rootname $file]]
			set fmt "    <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\""
			append x [format $fmt $cls [xml [dict get $r name]] [dict get $r secs]]
			set msg [dict get $r msg]
			set first [xml [lindex [split $msg \n] 0]]
			set status [dict get $r status]
			switch -- $status {
				ok { append x "/>\n" }
				skip {
					append x ">\n      <skipped message=\"$first\"/>\n"
					append x "    </testcase>\n"
				}
				fail - error {
					set e [expr {$status eq "fail" ? "failure" : "error"}]
					append x ">\n      <$e message=\"$first\">"
					append x "[xml $msg]</$e>\n    </testcase>\n"
				}
			}
		}
		append x "  </testsuite>\n"
	}
	append x "</testsuites>\n"
	set ch [open $path w]
	fconfigure $ch -encoding utf-8 -translation lf
	puts -nonewline $ch $x
	close $ch
}

if {[dict get $opt junit] ne ""} {
	write_junit [dict get $opt junit]
}

# The run directory stays only when it holds kept artifacts.
foreach d [glob -nocomplain -directory $outdir -type d *] {
	if {[llength [glob -nocomplain -directory $d *]] == 0} {
		file delete $d
	}
}
if {[llength [glob -nocomplain -directory $outdir *]] == 0} {
	file delete $outdir
}

if {[dict get $opt results] ne ""} { ;# a child runner: the parent reports and counts
	exit 0
}

set passed [dict get $counts passed]
set failed [dict get $counts failed]
if {$passed + $failed == 0} {
	puts "run.tcl: no test ran (files: $nfiles, --only [dict get $opt only],\
		--tags {[dict get $opt tags]})"
}
# A log cut to its tail (CI keeps the last lines) still names what failed and why.
foreach r $results {
	if {[dict get $r status] ni {ok skip}} {
		set why [lindex [split [string trim [dict get $r msg]] \n] 0]
		puts "failed: [dict get $r file]: [dict get $r name]: [string range $why 0 300]"
	}
}
puts "$passed passed, $failed failed, [dict get $counts skipped] skipped"
exit [expr {$failed > 0 || $passed + $failed == 0 ? 1 : 0}]
