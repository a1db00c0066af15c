# SPDX-License-Identifier: BSD-2-Clause
# util.tcl: the API test files are written against (test, assert_*, mrcgen, run_job, ...).
#
# harness/run.tcl sources this file into a fresh interpreter per test file, after setting
# ::top, ::mrcgen and the dict ::harness::cfg, and after aliasing
# ::harness::record to its result collector. Each `test` runs its body at once, in the
# caller's scope, with the current directory set to a fresh per-test directory.

namespace eval ::harness {
	# Defaults, so this file can also be sourced by hand (tclsh, then `source`).
	variable cfg
	if {![info exists cfg]} {
		set cfg [dict create]
	}
	foreach {k v} {
		file {} outdir {} keep 0 verbose 0 only * tags {} slow 0 timeout 300 uid -1
	} {
		if {![dict exists $cfg $k]} {
			dict set cfg $k $v
		}
	}
	variable seq 0		;# tests started in this file, names the per-test directories
	variable cur {}		;# dict about the running test: name file line dir ncmd
}

if {[info commands ::harness::record] eq ""} {
	# Stand-alone use: print results instead of reporting them to the runner.
	proc ::harness::record {status file name msg secs dir} {
		puts "\[$status\] $file: $name"
		if {$msg ne ""} {
			puts $msg
		}
	}
}

# ---------------------------------------------------------------------------------------
# Tests and their outcome

# test NAME TAGS BODY: runs BODY as one test unless --only/--tags deselect it or a
# capability tag (needs:root, needs:TOOL, slow) says to skip it.
proc test {name tags body} {
	variable ::harness::cfg
	set file [dict get $cfg file]
	if {![string match [dict get $cfg only] $name] || ![::harness::tags_selected $tags]} {
		return
	}
	set reason [::harness::capability_missing $tags]
	if {$reason ne ""} {
		::harness::record skip $file $name $reason 0 {}
		return
	}
	set frame [info frame -1]
	set line [expr {[dict exists $frame line] ? [dict get $frame line] : 0}]
	set dir [::harness::make_testdir $name]
	set ::harness::cur [dict create name $name file $file line $line dir $dir ncmd 0]
	set olddir [pwd]
	cd $dir
	set t0 [clock microseconds]
	set code [catch {uplevel 1 $body} msg opts]
	set secs [expr {([clock microseconds] - $t0) / 1e6}]
	cd $olddir
	set ::harness::cur {}
	set ecode [expr {[dict exists $opts -errorcode] ? [dict get $opts -errorcode] : ""}]
	if {$code == 0 || $code == 2} {
		set status ok
		set msg ""
	} elseif {$code == 1 && [lindex $ecode 0] eq "HARNESS" && [lindex $ecode 1] eq "SKIP"} {
		set status skip
	} elseif {$code == 1 && [lindex $ecode 0] eq "HARNESS" && [lindex $ecode 1] eq "ASSERT"} {
		set status fail
	} elseif {$code == 1} {
		# Cut the frames of this proc off the trace; name the line in the test file.
		set status error
		set info [dict get $opts -errorinfo]
		set cut [string first "\n    (\"uplevel\" body line" $info]
		if {$cut >= 0} {
			set info [string range $info 0 [expr {$cut - 1}]]
		}
		set at $file:?
		if {$line > 0 && [regexp {\n    \("uplevel" body line ([0-9]+)\)} \
			[dict get $opts -errorinfo] -> bline]} {
			set at $file:[expr {$line + $bline - 1}]
		}
		set msg "$at: error: $info"
	} else {
		set status error
		set msg "test body ended with [lindex {ok error return break continue} $code]"
	}
	set kept {}
	if {$status in {fail error} || [dict get $cfg keep]} {
		set kept $dir
	} else {
		file delete -force $dir
	}
	::harness::record $status $file $name $msg $secs $kept
}

# skip REASON: ends the running test as skipped.
proc skip {reason} {
	return -code error -errorcode {HARNESS SKIP} $reason
}

# fail MSG: ends the running test as failed, MSG prefixed with file:line of the caller.
proc fail {msg} {
	::harness::assert_failed "fail: $msg"
}

# assert_equal GOT WANT ?MSG?: string equality; the failure shows both values.
proc assert_equal {got want {msg ""}} {
	if {$got ne $want} {
		::harness::assert_failed "assert_equal: got [::harness::show $got],\
			want [::harness::show $want]" $msg
	}
}

# assert_match GLOB GOT ?MSG?: `string match GLOB GOT`.
proc assert_match {pattern got {msg ""}} {
	if {![string match $pattern $got]} {
		::harness::assert_failed "assert_match: [::harness::show $got] does not match\
			[::harness::show $pattern]" $msg
	}
}

# assert_range VAL LO HI ?MSG?: numeric LO <= VAL <= HI; a non-number fails.
proc assert_range {val lo hi {msg ""}} {
	if {![string is double -strict $val]} {
		::harness::assert_failed "assert_range: [::harness::show $val] is not a number" $msg
	}
	if {!($val >= $lo && $val <= $hi)} {
		::harness::assert_failed "assert_range: $val not in \[$lo, $hi\]" $msg
	}
}

# assert_true VALUE ?MSG?: VALUE must be a Tcl boolean and true.
proc assert_true {value {msg ""}} {
	if {![string is boolean -strict $value] || !$value} {
		::harness::assert_failed "assert_true: got [::harness::show $value]" $msg
	}
}

# wait_for_condition MAXTRIES DELAY_MS COND ?else? ELSE: evaluates the expression COND in
# the caller's scope up to MAXTRIES times, DELAY_MS apart; when it never holds, runs the
# script ELSE in the caller's scope (empty ELSE: the test fails).
proc wait_for_condition {maxtries delay_ms cond args} {
	if {[llength $args] == 2 && [lindex $args 0] eq "else"} {
		set args [lrange $args 1 end]
	}
	if {[llength $args] != 1} {
		error "usage: wait_for_condition MAXTRIES DELAY_MS COND ?else? ELSE"
	}
	for {set i 0} {$i < $maxtries} {incr i} {
		if {$i > 0} {
			after $delay_ms
		}
		if {[uplevel 1 [list expr $cond]]} {
			return
		}
	}
	set script [lindex $args 0]
	if {[string trim $script] eq ""} {
		::harness::assert_failed "wait_for_condition: {$cond} still false after\
			$maxtries tries $delay_ms ms apart"
	}
	uplevel 1 $script
}

# ---------------------------------------------------------------------------------------
# Running mrcgen

# mrcgen ?-timeout SECS? ?-stdin TEXT? ?--? ARG...: runs $::mrcgen ARG... in the current
# directory under coreutils timeout (default 300 s, or MRCGEN_TIMEOUT, or --timeout of the
# runner) with stdin from TEXT (else /dev/null). Returns dict {rc stdout stderr}; a nonzero
# exit is not an error. The test fails at once when mrcgen was killed by a signal, timed
# out, or printed a sanitizer report. Command lines and outputs are kept under .harness/
# of the test directory, so a failed test's artifacts show every command it ran.
proc mrcgen {args} {
	set timeout [dict get $::harness::cfg timeout]
	set stdin {}
	set have_stdin 0
	while {[llength $args] > 0} {
		switch -- [lindex $args 0] {
			-timeout {
				set timeout [lindex $args 1]
				set args [lrange $args 2 end]
			}
			-stdin {
				set stdin [lindex $args 1]
				set have_stdin 1
				set args [lrange $args 2 end]
			}
			-- {
				set args [lrange $args 1 end]
				break
			}
			default {
				break
			}
		}
	}
	if {![string is double -strict $timeout] || $timeout <= 0} {
		error "mrcgen: -timeout: not a positive number of seconds '$timeout'"
	}
	return [::harness::run_child $timeout $stdin $have_stdin [list $::mrcgen {*}$args]]
}

# run_job CONF ?-set {key=value ...}? ?-args {ARG ...}? ?-timeout SECS?: runs
# `mrcgen run CONF --set output.dir=DIR --set key=value ... ARG...` with DIR = out/ in the
# test directory (or the output.dir given in -set). Returns dict {rc stdout stderr dir
# report}, report being DIR/report.json parsed by tcllib json::json2dict, or {} if absent.
proc run_job {conf args} {
	set sets {}
	set extra {}
	set timeout [dict get $::harness::cfg timeout]
	if {[llength $args] % 2 != 0} {
		error "usage: run_job CONF ?-set {key=value ...}? ?-args {ARG ...}? ?-timeout SECS?"
	}
	foreach {opt val} $args {
		switch -- $opt {
			-set { lappend sets {*}$val }
			-args { lappend extra {*}$val }
			-timeout { set timeout $val }
			default {
				error "run_job: option: unknown '$opt' (want -set, -args, -timeout)"
			}
		}
	}
	set dir [file join [pwd] out]
	set argv [list run $conf --set output.dir=$dir]
	foreach kv $sets {
		if {[string first = $kv] < 1} {
			error "run_job: -set: not key=value '$kv'"
		}
		lappend argv --set $kv
		if {[string match output.dir=* $kv]} {
			set dir [file normalize [string range $kv [string length output.dir=] end]]
		}
	}
	lappend argv {*}$extra
	set res [mrcgen -timeout $timeout -- {*}$argv]
	set report {}
	set path [file join $dir report.json]
	if {[file isfile $path]} {
		# every report mrcgen writes matches the schema (docs/schema/report-v1.schema.json);
		# a test's stand-in or a sentinel file (no mrcgen-report/1 tag) is left alone
		if {[schema_available] && [string first {"schema": "mrcgen-report/1"} \
				[read_file $path]] >= 0} {
			assert_schema report $path "run_job $conf"
		}
		package require json
		if {[catch {json::json2dict [read_file $path]} report]} {
			error "run_job: $path: not JSON: $report"
		}
	}
	dict set res dir $dir
	dict set res report $report
	return $res
}

# ---------------------------------------------------------------------------------------
# Files

# write_file PATH TEXT: writes TEXT exactly (UTF-8, no newline added); makes parent dirs.
proc write_file {path text} {
	file mkdir [file dirname $path]
	set f [open $path w]
	fconfigure $f -encoding utf-8 -translation lf
	puts -nonewline $f $text
	close $f
}

# read_file PATH: the whole file as text (UTF-8; bytes that are not UTF-8 map one to one).
proc read_file {path} {
	set f [open $path rb]
	set data [read $f]
	close $f
	return [encoding convertfrom utf-8 $data]
}

# with_tmpfs DIR BODY: runs BODY in the caller with a 64 KiB tmpfs mounted at DIR (made
# first) and unmounts it afterwards, whatever BODY does; skips the test where the mount
# fails (no root, no tmpfs).
proc with_tmpfs {dir body} {
	file mkdir $dir
	if {[catch {exec mount -t tmpfs -o size=64k tmpfs $dir} msg]} {
		skip "mount tmpfs: $msg"
	}
	try {
		uplevel 1 $body
	} finally {
		exec umount $dir
	}
}

# ---------------------------------------------------------------------------------------
# Internals

namespace eval ::harness {}

# Runs argv (a list, argv[0] the program) under `timeout`; see `mrcgen` above.
proc ::harness::run_child {timeout stdin have_stdin argv} {
	variable cur
	variable cfg
	if {[dict size $cur] > 0} {
		dict incr cur ncmd
		set n [dict get $cur ncmd]
		set base [file join [dict get $cur dir] .harness cmd-$n]
	} else {
		# Outside a test (top level of a test file): scratch files, removed below.
		set outdir [dict get $cfg outdir]
		if {$outdir eq ""} {
			set outdir [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}]
		}
		set base [file join $outdir .harness-[pid]-[clock microseconds]]
	}
	file mkdir [file dirname $base]
	write_file $base.cmd "[join [lmap a $argv {::harness::shell_quote $a}] { }]\n"
	set cmd [list timeout -k 5 $timeout {*}$argv >$base.out 2>$base.err]
	if {$have_stdin} {
		write_file $base.in $stdin
		lappend cmd <$base.in
	} else {
		lappend cmd </dev/null
	}
	set t0 [clock microseconds]
	set code [catch {exec {*}$cmd} msg opts]
	set secs [expr {([clock microseconds] - $t0) / 1e6}]
	set rc 0
	set killed {}
	if {$code != 0} {
		set ec [dict get $opts -errorcode]
		switch -- [lindex $ec 0] {
			CHILDSTATUS { set rc [lindex $ec 2] }
			CHILDKILLED {
				set killed [lindex $ec 2]
				set rc [expr {128 + [::harness::signum $killed]}]
			}
			default {
				error "run: [lindex $argv 0]: cannot run: $msg"
			}
		}
	}
	set out [read_file $base.out]
	set err [read_file $base.err]
	if {[dict size $cur] > 0} {
		write_file $base.rc "$rc\n"
	} else {
		file delete -force {*}[glob -nocomplain $base.*]
	}
	set what "[file tail [lindex $argv 0]] [lrange $argv 1 end]"
	if {[dict get $cfg verbose]} {
		puts [format "    \$ %s  (rc %d, %.3f s)" $what $rc $secs]
		foreach {tag text} [list out $out err $err] {
			foreach l [split [string trimright $text \n] \n] {
				if {$l ne ""} {
					puts "      $tag| $l"
				}
			}
		}
	}
	if {$killed ne ""} {
		::harness::assert_failed \
			"run: $what: killed by $killed (rc $rc)\n[::harness::tail $err]"
	}
	if {$rc == 124 || $rc == 137} {
		::harness::assert_failed "run: $what: timed out after $timeout s (rc $rc)"
	}
	if {[regexp -line {^==[0-9]+==ERROR: [A-Za-z]+Sanitizer|: runtime error: } $err]} {
		::harness::assert_failed \
			"run: $what: sanitizer report (rc $rc)\n[::harness::tail $err]"
	}
	return [dict create rc $rc stdout $out stderr $err]
}

# Signal name (SIGSEGV) to number, for the 128+N exit status a shell would show.
proc ::harness::signum {name} {
	set nums {SIGHUP 1 SIGINT 2 SIGQUIT 3 SIGILL 4 SIGTRAP 5 SIGABRT 6 SIGBUS 7 SIGFPE 8
		SIGKILL 9 SIGUSR1 10 SIGSEGV 11 SIGUSR2 12 SIGPIPE 13 SIGALRM 14 SIGTERM 15}
	if {[dict exists $nums $name]} {
		return [dict get $nums $name]
	}
	return 0
}

proc ::harness::shell_quote {s} {
	if {[regexp {^[A-Za-z0-9_./=:,+@%-]+$} $s]} {
		return $s
	}
	return '[string map {' '\\''} $s]'
}

# Last lines of a text, indented, for failure messages.
proc ::harness::tail {text {n 20}} {
	set lines [split [string trimright $text \n] \n]
	return [join [lmap l [lrange $lines end-[expr {$n - 1}] end] {string cat "      " $l}] \n]
}

# A value in a failure message: quoted, long values cut in the middle.
proc ::harness::show {v} {
	if {[string length $v] > 400} {
		set v "[string range $v 0 199] ... [string range $v end-199 end]"
	}
	return "\"$v\""
}

# Throws the failure of an assert, prefixed with file:line of the assert's caller.
proc ::harness::assert_failed {what {msg ""}} {
	set text "[::harness::where]: $what"
	if {$msg ne ""} {
		append text " ($msg)"
	}
	return -level 0 -code error -errorcode {HARNESS ASSERT} $text
}

# file:line of the test-file command that led to the current assert. Commands in a test
# body report their line relative to the body, which starts on the line of its `test`.
proc ::harness::where {} {
	variable cur
	for {set l [expr {[info frame] - 1}]} {$l > 0} {incr l -1} {
		set f [info frame $l]
		set p [expr {[dict exists $f proc] ? [dict get $f proc] : ""}]
		if {[string match ::harness::* $p] || $p in {
			::assert_equal ::assert_match ::assert_range ::assert_true ::fail
			::wait_for_condition ::mrcgen ::run_job ::assert_schema ::schema_errors
		}} {
			continue
		}
		if {[dict exists $f file] && [dict exists $f line]} {
			return "[file tail [dict get $f file]]:[dict get $f line]"
		}
		if {[dict size $cur] > 0 && [dict exists $f line] && [dict get $f type] eq "eval"} {
			set n [expr {[dict get $cur line] + [dict get $f line] - 1}]
			return "[dict get $cur file]:$n"
		}
	}
	return [expr {[dict size $cur] > 0 ? "[dict get $cur file]:?" : "?"}]
}

# --tags: "a b" runs tests having any of a, b; "-c" leaves out tests having c.
proc ::harness::tags_selected {tags} {
	set want {}
	foreach t [dict get $::harness::cfg tags] {
		if {[string index $t 0] eq "-"} {
			if {[string range $t 1 end] in $tags} {
				return 0
			}
		} else {
			lappend want $t
		}
	}
	if {[llength $want] == 0} {
		return 1
	}
	foreach t $want {
		if {$t in $tags} {
			return 1
		}
	}
	return 0
}

# Why a test with these tags cannot run here, or "" when it can.
proc ::harness::capability_missing {tags} {
	variable cfg
	foreach t $tags {
		if {$t eq "slow"} {
			if {![dict get $cfg slow] && "slow" ni [dict get $cfg tags]} {
				return "slow: use --slow or MRCGEN_SLOW=1"
			}
		} elseif {$t eq "needs:root"} {
			if {[dict get $cfg uid] != 0} {
				return "needs:root: not uid 0"
			}
		} elseif {[string match needs:* $t]} {
			set tool [string range $t 6 end]
			if {$tool eq ""} {
				return "needs:: empty capability"
			}
			if {[auto_execok $tool] eq ""} {
				return "$t: no '$tool' in PATH"
			}
		}
	}
	return ""
}

# A fresh directory for the next test of this file: OUTDIR/FILE/NN-NAME.
proc ::harness::make_testdir {name} {
	variable cfg
	variable seq
	set outdir [dict get $cfg outdir]
	if {$outdir eq ""} {
		set tmp [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}]
		set outdir [file join $tmp mrcgen-test-[pid]]
		dict set cfg outdir $outdir
	}
	set slug [string trim [regsub -all {[^A-Za-z0-9_.-]+} $name -] -]
	set dir [file join $outdir [file rootname [dict get $cfg file]] \
		[format %02d-%s [incr seq] [string range $slug 0 60]]]
	file delete -force $dir
	file mkdir $dir
	return [file normalize $dir]
}

# The records of a pcap file (little-endian, as libpcap writes on this host): their count,
# and the offset where the walk stopped (the file size when every record is whole).
proc pcap_walk {path} {
	set f [open $path rb]
	set d [read $f]
	close $f
	set off 24
	set n 0
	while {$off + 16 <= [string length $d]} {
		binary scan $d @[expr {$off + 8}]iu incl
		if {$off + 16 + $incl > [string length $d]} {
			break
		}
		incr off [expr {16 + $incl}]
		incr n
	}
	return [list $n $off [string length $d]]
}
