#!/usr/bin/env tclsh
# SPDX-License-Identifier: BSD-2-Clause
# compare.tcl: runs the same loads on mrcgen and on UEC's htsim (htsim_uec) and prints one
# table: per load and tool, completion time, goodput, trims (NACKs), ECN marks,
# retransmissions, and each tool's wall time, CPU time and peak RSS. docs/htsim-comparison.md
# explains how the loads are matched and what still differs.
#
# usage: harness/htsim/compare.sh --htsim PATH [--model mrc|roce] [--mrcgen PATH] [--runs N] [--loads LIST]
#        [--out DIR] [--queue PKTS] [--ecn PKTS] [--incast-size BYTES] [--perm-size BYTES]
#        [--a2a-pair BYTES] [--sack-every BYTES] [--mrcgen-set KEY=VALUE]... [--htsim-arg ARG]...
#        [--a2a-order ascending|shifted] [--no-ecn-count]
#
# The repository neither fetches nor builds htsim. Build it yourself, outside this tree:
#     git clone https://github.com/ultraethernet/uet-htsim
#     cd uet-htsim/htsim/sim
#     cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --target htsim_uec -j
#     # the binary: build/datacenter/htsim_uec (the build also links it as datacenter/htsim_uec)
# then: harness/htsim/compare.sh --htsim /path/to/uet-htsim/htsim/sim/build/datacenter/htsim_uec
#
# --model roce compares mrcgen's RoCE baseline in PFC mode with htsim's RoCE model
# (htsim_roce: build its target the same way, --target htsim_roce): docs/roce-baseline.md
# "Side by side with htsim".
#
# Needs tclsh 8.6 with tcllib (json), and /usr/bin/time (GNU time) for CPU and RSS figures
# (without it only wall time is shown). Run N uses seed N on both tools: mrcgen's seeded
# permutation is reproduced here (xoshiro256** + Sattolo, as mrc/job/coll.c) and written
# into htsim's connection matrix, so both tools run the same pairs.

package require Tcl 8.6
package require json

set here [file dirname [file normalize [info script]]]
set top [file dirname [file dirname $here]]

# ---------------------------------------------------------------------------------------
# The matched setup (see docs/htsim-comparison.md)

array set P {
	hosts 128 hosts_per_t0 16 t0 8 t1 16
	rate_gbps 100 host_delay_ns 50 fabric_delay_ns 500 switch_delay_ns 500
	mtu 4096 mrc_hdr 128 htsim_hdr 64
	queue 50 ecn 12 ev_count 128
	incast_senders 8 incast_size 4194304 perm_size 8388608 a2a_pair 16384 sack_every 16384
	end_us 500000
}

proc usage {{code 2}} {
	set chan [expr {$code == 0 ? "stdout" : "stderr"}]
	puts $chan "usage: harness/htsim/compare.sh --htsim PATH \[options\]
  --htsim PATH        the htsim_uec binary you built (required; see the top of compare.tcl)
  --mrcgen PATH       mrcgen binary (default: the repository's ./mrcgen; run `make` first)
  --runs N            runs per load and tool, interleaved; run i uses seed i (default 1)
  --loads LIST        comma-separated, of incast, perm, a2a (default: all three)
  --out DIR           where configs, outputs and results.tsv go (default harness/out/htsim)
  --queue PKTS        data buffer per output port, in full data packets (default 50)
  --ecn PKTS          ECN threshold, in full data packets (default 12)
  --incast-size B     bytes per sender of the 8->1 incast (default 4194304)
  --perm-size B       bytes per flow of the 128-host permutation (default 8388608)
  --a2a-pair B        bytes per pair of the 128-host all-to-all (default 16384)
  --sack-every B      ACK at least every B bytes received: mrcgen mrc.sack_every and htsim
                      -sack_threshold (default 16384, htsim's own default)
  --mrcgen-set K=V    extra `--set K=V` for mrcgen (repeatable), e.g. mrc.cc.algorithm=fixed
  --htsim-arg ARG     extra htsim_uec argument (repeatable), e.g. --htsim-arg -sender_cc_algo
                      --htsim-arg constant
  --a2a-order ORDER   htsim's all-to-all flow order per host: shifted (s+1, s+2, ...:
                      mrcgen's NIC order, default) or ascending (0, 1, ...: an experiment)
  --no-ecn-count      skip htsim's second, -debug run that counts ECN-marked arrivals"
	exit $code
}

proc die {msg} {
	puts stderr "compare: $msg"
	exit 1
}

set opt(htsim) {}
set opt(model) mrc
set opt(mrcgen) [file join $top mrcgen]
set opt(runs) 1
set opt(loads) {incast perm a2a}
set opt(out) [file join $top harness out htsim]
set opt(ecncount) 1
set opt(mset) {}
set opt(a2a_order) shifted
set opt(harg) {}
for {set i 0} {$i < [llength $argv]} {incr i} {
	set a [lindex $argv $i]
	set v [lindex $argv [expr {$i + 1}]]
	switch -- $a {
		-h - --help { usage 0 }
		--htsim { set opt(htsim) $v; incr i }
		--model { set opt(model) $v; incr i }
		--mrcgen { set opt(mrcgen) $v; incr i }
		--runs { set opt(runs) $v; incr i }
		--loads { set opt(loads) [split $v ,]; set loads_given 1; incr i }
		--out { set opt(out) $v; incr i }
		--queue { set P(queue) $v; incr i }
		--ecn { set P(ecn) $v; incr i }
		--incast-size { set P(incast_size) $v; incr i }
		--perm-size { set P(perm_size) $v; incr i }
		--a2a-pair { set P(a2a_pair) $v; incr i }
		--sack-every { set P(sack_every) $v; incr i }
		--mrcgen-set { lappend opt(mset) --set $v; incr i }
		--htsim-arg { lappend opt(harg) $v; incr i }
		--a2a-order { set opt(a2a_order) $v; incr i }
		--no-ecn-count { set opt(ecncount) 0 }
		default { puts stderr "compare: unknown option '$a'"; usage }
	}
}
if {$opt(model) ni {mrc roce}} { die "--model: want mrc or roce, not '$opt(model)'" }
if {$opt(model) eq "roce"} {
	# htsim_roce's built-in 2-tier fat tree of 128 hosts (K 16: 16 leaves of 8 hosts, 8
	# spines) with one latency per hop and per switch; lossless input queues, PFC at 15
	# packets and resumed below 12; RoCE sources at line rate without congestion control;
	# mrcgen's RoCE packets on stev/udp carry 92 bytes of headers (docs/roce-baseline.md)
	array set P {
		hosts 128 hosts_per_t0 8 t0 16 t1 8
		host_delay_ns 500 fabric_delay_ns 500 switch_delay_ns 500
		mrc_hdr 92 pfc_low 12 pfc_high 15 incast_senders 8
	}
	if {![info exists loads_given]} { set opt(loads) {incast perm} }
}
foreach k {runs queue ecn incast_size perm_size a2a_pair sack_every} {
	set val [expr {[info exists opt($k)] ? $opt($k) : $P($k)}]
	if {![string is integer -strict $val] || $val < 1} {
		die "--[string map {_ -} $k]: not a positive integer '$val'"
	}
}
foreach l $opt(loads) {
	if {$l ni {incast perm a2a}} { die "--loads: unknown load '$l' (incast, perm, a2a)" }
}
if {$opt(a2a_order) ni {ascending shifted}} {
	die "--a2a-order: want ascending or shifted, not '$opt(a2a_order)'"
}
if {$opt(htsim) eq ""} {
	puts stderr "compare: --htsim PATH is required: the htsim_uec binary you built.\nBuild it outside this repository:\n  git clone https://github.com/ultraethernet/uet-htsim\n  cd uet-htsim/htsim/sim && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --target htsim_uec -j\n  # then --htsim uet-htsim/htsim/sim/build/datacenter/htsim_uec"
	exit 2
}
set opt(htsim) [file normalize $opt(htsim)]
if {![file isfile $opt(htsim)] || ![file executable $opt(htsim)]} {
	die "--htsim: no executable file '$opt(htsim)' (build htsim_uec first; see usage)"
}
set opt(mrcgen) [file normalize $opt(mrcgen)]
if {![file isfile $opt(mrcgen)] || ![file executable $opt(mrcgen)]} {
	die "--mrcgen: no executable file '$opt(mrcgen)' (run `make` in the repository)"
}
if {$P(ecn) > $P(queue)} { die "--ecn ($P(ecn)) above --queue ($P(queue))" }
set have_time [file executable /usr/bin/time]
file mkdir $opt(out)
set opt(out) [file normalize $opt(out)]

proc write_file {path text} {
	set f [open $path w]
	puts -nonewline $f $text
	close $f
}

proc read_file {path} {
	set f [open $path r]
	set t [read $f]
	close $f
	return $t
}

# ---------------------------------------------------------------------------------------
# mrcgen's seeded permutation (mrc/base/rng.c, mrc/job/coll.c make_perm)

set M64 0xFFFFFFFFFFFFFFFF

proc rotl {x k} {
	expr {(($x << $k) | ($x >> (64 - $k))) & $::M64}
}

proc rng_seed {seed} {
	set x $seed
	set s {}
	for {set i 0} {$i < 4} {incr i} {
		set x [expr {($x + 0x9E3779B97F4A7C15) & $::M64}]
		set z $x
		set z [expr {(($z ^ ($z >> 30)) * 0xBF58476D1CE4E5B9) & $::M64}]
		set z [expr {(($z ^ ($z >> 27)) * 0x94D049BB133111EB) & $::M64}]
		lappend s [expr {$z ^ ($z >> 31)}]
	}
	return $s
}

proc rng_next {sv} {
	upvar 1 $sv s
	lassign $s s0 s1 s2 s3
	set res [expr {([rotl [expr {($s1 * 5) & $::M64}] 7] * 9) & $::M64}]
	set t [expr {($s1 << 17) & $::M64}]
	set s2 [expr {$s2 ^ $s0}]
	set s3 [expr {$s3 ^ $s1}]
	set s1 [expr {$s1 ^ $s2}]
	set s0 [expr {$s0 ^ $s3}]
	set s2 [expr {$s2 ^ $t}]
	set s3 [rotl $s3 45]
	set s [list $s0 $s1 $s2 $s3]
	return $res
}

proc rng_below {sv n} {
	upvar 1 $sv s
	set lim [expr {((1 << 64) - $n) % $n}]
	while {1} {
		set x [rng_next s]
		if {$x >= $lim} { return [expr {$x % $n}] }
	}
}

# perm_to: rank r sends to [lindex $perm r] (Sattolo: one cycle, nobody sends to itself)
proc mrc_perm {n seed} {
	set s [rng_seed $seed]
	set p {}
	for {set i 0} {$i < $n} {incr i} { lappend p $i }
	for {set i [expr {$n - 1}]} {$i > 0} {incr i -1} {
		set j [rng_below s $i]
		set t [lindex $p $i]
		lset p $i [lindex $p $j]
		lset p $j $t
	}
	return $p
}

# ---------------------------------------------------------------------------------------
# Configs

# The seed and the fabric's topology, rates and delays: the head of both models' configs.
proc yaml_head {by load seed} {
	global P
	return "# generated by harness/htsim/$by: $load, seed $seed
seed: $seed
fabric:
  driver: sim
  planes: 1
  t0: $P(t0)
  t1: $P(t1)
  hosts_per_t0: $P(hosts_per_t0)
  link_rate: $P(rate_gbps)Gbps
  host_link_delay: $P(host_delay_ns)ns
  fabric_link_delay: $P(fabric_delay_ns)ns
  switch_delay: $P(switch_delay_ns)ns"
}

proc mrc_yaml {load seed} {
	global P
	if {$::opt(model) eq "roce"} { return [roce_yaml $load $seed] }
	# a full data packet: payload + 128 bytes of headers (srv6: 2 IPv6, UDP, BTH, METH,
	# TSETH, RETH, ICRC; docs/wire-format.md "Packet stack")
	set wire [expr {$P(mtu) + $P(mrc_hdr)}]
	set buf [expr {$P(queue) * $wire}]
	set ecn [expr {$P(ecn) * $wire}]
	switch -- $load {
		incast {
			set traffic "  pattern: incast\n  ranks: [expr {$P(incast_senders) + 1}]\n  root: h0\n  sizes: \[$P(incast_size)B\]"
		}
		perm { set traffic "  pattern: sendrecv\n  sizes: \[$P(perm_size)B\]" }
		a2a {
			set traffic "  pattern: alltoall\n  algorithm: parallel\n  sizes: \[[expr {$P(a2a_pair) * $P(hosts)}]B\]"
		}
	}
	return "[yaml_head compare.tcl $load $seed]
  buffer: ${buf}B
  ecn_threshold: ${ecn}B
  ecn_last_hop: true
  trim: true
  trim_size: $P(mrc_hdr)B
mrc:
  transport: mrc
  ev_format: srv6
  ev:
    ev_count: $P(ev_count)
    ev_min_active: 16
  cc:
    algorithm: nscc
  mtu: $P(mtu)
  sack_every: $P(sack_every)B
traffic:
$traffic
  dtype: float32
  warmup: 0
  iterations: 1
  verify: false
output:
  report: true
  plots: false
  hlog: false
"
}

proc htsim_topo {} {
	global P
	return "Nodes $P(hosts)
Tiers 2
Podsize $P(hosts)

Tier 0
Downlink_speed_Gbps $P(rate_gbps)
Radix_Down $P(hosts_per_t0)
Radix_Up $P(t1)
Downlink_Latency_ns $P(host_delay_ns)
Switch_Latency_ns $P(switch_delay_ns)
Oversubscribed [expr {$P(hosts_per_t0) / $P(t1)}]

Tier 1
Downlink_speed_Gbps $P(rate_gbps)
Radix_Down $P(t0)
Downlink_Latency_ns $P(fabric_delay_ns)
Switch_Latency_ns $P(switch_delay_ns)
"
}

# mrcgen's RoCE baseline set up as htsim_roce: PFC (xoff/xon at htsim's packet counts of
# full packets), no trimming, no ECN marking, a window as large as the receive window
# instead of congestion control (htsim's RoCE sources send at line rate unless paused)
proc roce_yaml {load seed} {
	global P
	set wire [expr {$P(mtu) + $P(mrc_hdr)}]
	switch -- $load {
		incast {
			set traffic "  pattern: incast\n  ranks: [expr {$P(incast_senders) + 1}]\n  root: h0\n  sizes: \[$P(incast_size)B\]"
		}
		perm { set traffic "  pattern: sendrecv\n  sizes: \[$P(perm_size)B\]" }
		default { die "--model roce: load '$load' is not compared (incast, perm)" }
	}
	return "[yaml_head {compare.tcl --model roce} $load $seed]
  buffer: [expr {$P(queue) * $wire}]B
  ecn_threshold: 0B
  trim: false
  pfc:
    enabled: true
    xoff: [expr {$P(pfc_high) * $wire}]B
    xon: [expr {$P(pfc_low) * $wire}]B
  ecmp:
    seed: $seed
mrc:
  transport: roce
  ev_format: udp
  cc:
    algorithm: fixed
    fixed_cwnd: 4MiB
  mtu: $P(mtu)
traffic:
$traffic
  dtype: float32
  warmup: 0
  iterations: 1
  verify: false
output:
  report: true
  plots: false
  hlog: false
"
}

# returns {text nflows payload_bytes}
proc htsim_cm {load seed} {
	global P
	set lines {}
	set id 0
	if {$::opt(model) eq "roce"} {
		# htsim's RoCE packet is all payload: as many packets of mrcgen's wire size
		set isz [expr {$P(incast_size) / $P(mtu) * ($P(mtu) + $P(mrc_hdr))}]
		set psz [expr {$P(perm_size) / $P(mtu) * ($P(mtu) + $P(mrc_hdr))}]
	} else {
		set isz $P(incast_size)
		set psz $P(perm_size)
	}
	switch -- $load {
		incast {
			for {set s 1} {$s <= $P(incast_senders)} {incr s} {
				lappend lines "$s->0 id [incr id] start 0 size $isz"
			}
			set bytes [expr {$P(incast_senders) * $P(incast_size)}]
		}
		perm {
			set p [mrc_perm $P(hosts) $seed]
			for {set r 0} {$r < $P(hosts)} {incr r} {
				lappend lines "$r->[lindex $p $r] id [incr id] start 0 size $psz"
			}
			set bytes [expr {$P(hosts) * $P(perm_size)}]
		}
		a2a {
			# mrcgen's NIC serves a host's QPs round robin from the first QP to a host above
			# its own (mrc/engine/ep.c, rank + 1 first, the order the collective posts);
			# htsim's NIC serves a host's flows in the order of this file: so s+1, s+2, ...
			# here too (shifted, the default). --a2a-order ascending lists 0, 1, ... for
			# every host instead, a rolling incast mrcgen no longer runs.
			for {set s 0} {$s < $P(hosts)} {incr s} {
				for {set k 1} {$k < $P(hosts)} {incr k} {
					set d [expr {$::opt(a2a_order) eq "shifted" ? ($s + $k) % $P(hosts)
						: ($k <= $s ? $k - 1 : $k)}]
					lappend lines "$s->$d id [incr id] start 0 size $P(a2a_pair)"
				}
			}
			set bytes [expr {$P(hosts) * ($P(hosts) - 1) * $P(a2a_pair)}]
		}
	}
	return [list "Nodes $P(hosts)\nConnections $id\n[join $lines \n]\n" $id $bytes]
}

proc htsim_args {dir} {
	global P
	if {$::opt(model) eq "roce"} {
		return [list -nodes $P(hosts) -tiers 2 -q $P(queue) -tm [file join $dir load.cm] \
			-linkspeed [expr {$P(rate_gbps) * 1000}] -mtu [expr {$P(mtu) + $P(mrc_hdr)}] \
			-hop_latency [expr {$P(fabric_delay_ns) / 1000.0}] \
			-switch_latency [expr {$P(switch_delay_ns) / 1000.0}] -strat ecmp_host \
			-paths $P(ev_count) -pfc_thresholds $P(pfc_low) $P(pfc_high) -end $P(end_us) \
			-o [file join $dir logout.dat] {*}$::opt(harg)]
	}
	set hlen [expr {$P(mtu) + $P(htsim_hdr)}]
	return [list -topo [file join $dir topo.topo] -tm [file join $dir load.cm] \
		-linkspeed [expr {$P(rate_gbps) * 1000}] -mtu $hlen -q $P(queue) \
		-ecn $P(ecn) $P(ecn) -trimsize $P(htsim_hdr) -paths $P(ev_count) \
		-sack_threshold $P(sack_every) -sender_cc_only -end $P(end_us) \
		-o [file join $dir logout.dat] {*}$::opt(harg)]
}

# ---------------------------------------------------------------------------------------
# Running, with GNU time when there is one

proc timed_run {dir name argv} {
	global have_time
	set out [file join $dir $name.out]
	set err [file join $dir $name.err]
	set tf [file join $dir $name.time]
	set t0 [clock microseconds]
	if {$have_time} {
		set rc [catch {exec /usr/bin/time -v -o $tf {*}$argv >$out 2>$err} msg]
	} else {
		set rc [catch {exec {*}$argv >$out 2>$err} msg]
	}
	set wall [expr {([clock microseconds] - $t0) / 1e6}]
	set r [dict create wall $wall cpu NA rss_mib NA rc $rc msg $msg out $out err $err]
	if {$have_time && [file exists $tf]} {
		set t [read_file $tf]
		if {[regexp {User time \(seconds\): ([0-9.]+)} $t -> u] &&
			[regexp {System time \(seconds\): ([0-9.]+)} $t -> s]} {
			dict set r cpu [expr {$u + $s}]
		}
		if {[regexp {Maximum resident set size \(kbytes\): ([0-9]+)} $t -> kb]} {
			dict set r rss_mib [expr {$kb / 1024.0}]
		}
	}
	return $r
}

proc run_mrcgen {load seed dir} {
	global opt
	file mkdir $dir
	set conf [file join $dir mrcgen.yaml]
	write_file $conf [mrc_yaml $load $seed]
	set r [timed_run $dir mrcgen [list $opt(mrcgen) run $conf -o [file join $dir out] {*}$opt(mset)]]
	set rep [file join $dir out report.json]
	if {[dict get $r rc] || ![file exists $rep]} {
		die "mrcgen $load seed $seed failed: [dict get $r msg]; see [dict get $r err]"
	}
	set j [json::json2dict [read_file $rep]]
	set c [dict get $j counters]
	set cct [dict get [lindex [dict get $j sizes] 0] time_us]
	set bytes [dict get $c data_bytes]
	dict set r cct $cct
	dict set r payload $bytes
	dict set r data [dict get $c data_pkts]
	dict set r rtx [dict get $c rtx_pkts]
	dict set r trims [dict get $c fabric_trims]
	dict set r nacks [dict get $c nacks_trimmed]
	dict set r ecn [dict get $c fabric_ecn_marks]
	dict set r acks [dict get $c sacks]
	dict set r hops [dict get $c packet_hops]
	# the median flow: each rank's one write (sendrecv, incast) completes with its flow
	dict set r fct50 [dict get $j latency message_us percentiles p50]
	dict set r pauses [dict get $c fabric_pfc_pauses]
	return $r
}

proc run_htsim {load seed dir} {
	global opt P
	file mkdir $dir
	write_file [file join $dir topo.topo] [htsim_topo]
	lassign [htsim_cm $load $seed] cm nflows bytes
	write_file [file join $dir load.cm] $cm
	set argv [list $opt(htsim) {*}[htsim_args $dir] -seed $seed]
	set cwd [pwd]
	cd $dir
	set r [timed_run $dir htsim $argv]
	cd $cwd
	set text [read_file [dict get $r out]]
	set cct 0
	set done 0
	set fcts {}
	foreach {- t} [regexp -all -inline {finished at ([0-9.e+]+)} $text] {
		incr done
		lappend fcts $t
		if {$t > $cct} { set cct $t }
	}
	set fcts [lsort -real $fcts]
	dict set r fct50 [lindex $fcts [expr {([llength $fcts] + 1) / 2 - 1}]]
	if {$opt(model) eq "roce"} {
		# htsim_roce prints no packet counts but its go-back-N rewinds (Rtx: packets resent)
		if {![regexp {New: (\d+) Rtx: (\d+)} $text -> new rtx]} {
			die "htsim $load seed $seed: no summary line; see [dict get $r out]"
		}
		if {$done != $nflows} {
			die "htsim $load seed $seed: $done of $nflows flows finished; see [dict get $r out]"
		}
		set pkts [expr {$bytes / $P(mtu)}]
		foreach {k v} [list cct $cct payload $bytes data $pkts rtx $rtx trims 0 nacks NA \
				acks NA hops NA ecn NA pauses NA] {
			dict set r $k $v
		}
		return $r
	}
	if {![regexp {New: (\d+) Rtx: (\d+) RTS: (\d+) Bounced: (\d+) ACKs: (\d+) NACKs: (\d+)} \
			$text -> new rtx rts bounced acks nacks]} {
		die "htsim $load seed $seed: no summary line; see [dict get $r out] and [dict get $r err]"
	}
	if {$done != $nflows} {
		die "htsim $load seed $seed: $done of $nflows flows finished (end time $P(end_us) us?); see [dict get $r out]"
	}
	dict set r cct $cct
	dict set r payload $bytes
	dict set r data $new
	dict set r rtx $rtx
	dict set r trims $nacks
	dict set r nacks $nacks
	dict set r acks $acks
	dict set r hops NA
	dict set r ecn NA
	dict set r pauses NA
	if {$opt(ecncount)} {
		# htsim prints no ECN count; its receiver ACKs every CE-marked arrival at once, and
		# with -debug prints that ACK with "ecn 1". A second run (not timed) counts them.
		set cmd [list $opt(htsim) {*}[htsim_args $dir] -seed $seed -debug]
		cd $dir
		catch {exec {*}$cmd 2>/dev/null | grep -c {UecSink .*sendAckNow: .* ecn 1 }} n
		cd $cwd
		if {[string is integer -strict $n]} { dict set r ecn $n }
	}
	return $r
}

# ---------------------------------------------------------------------------------------
# Main: interleaved runs, then the table

set rtt_mrc [expr {4 * (($P(mtu) + 150 + 160) * 8.0 / $P(rate_gbps)) \
	+ 4 * ($P(host_delay_ns) + $P(fabric_delay_ns)) + 6 * $P(switch_delay_ns)}]
set rtt_hts [expr {4 * (($P(mtu) + $P(htsim_hdr) + 64) * 8.0 / $P(rate_gbps)) \
	+ 4 * ($P(host_delay_ns) + $P(fabric_delay_ns)) + 6 * $P(switch_delay_ns)}]
puts [format "# 1 plane, %d T0 x %d hosts, %d T1, %d Gb/s links, delays host %d ns, fabric %d ns, switch %d ns" \
	$P(t0) $P(hosts_per_t0) $P(t1) $P(rate_gbps) $P(host_delay_ns) $P(fabric_delay_ns) $P(switch_delay_ns)]
if {$opt(model) eq "roce"} {
	puts [format "# RoCE in PFC mode: payload MTU %d B (%d B packets); xoff %d, xon %d packets; no trimming, no ECN, no congestion control; ECMP per flow" \
		$P(mtu) [expr {$P(mtu) + $P(mrc_hdr)}] $P(pfc_high) $P(pfc_low)]
} else {
	puts [format "# payload MTU %d B; buffer %d and ECN %d full data packets; trimming on; NSCC base RTT mrcgen %.2f us, htsim %.2f us" \
		$P(mtu) $P(queue) $P(ecn) [expr {$rtt_mrc / 1000}] [expr {$rtt_hts / 1000}]]
}
puts "# ACK at least every $P(sack_every) B; mrcgen extra: [join $opt(mset)]; htsim extra: [join $opt(harg)]"
puts "# outputs in $opt(out)"

set rows {}
set ratios {}
for {set run 1} {$run <= $opt(runs)} {incr run} {
	foreach load $opt(loads) {
		foreach tool {mrcgen htsim} {
			set dir [file join $opt(out) $load run$run $tool]
			puts -nonewline stderr "run $run: $load on $tool ... "
			flush stderr
			set r [run_$tool $load $run $dir]
			puts stderr [format "%.1f us (%.1f s)" [dict get $r cct] [dict get $r wall]]
			lappend rows [list $load $tool $run $r]
		}
	}
}

proc mean {l} {
	set l [lsearch -all -inline -not -exact $l NA]
	if {![llength $l]} { return NA }
	expr {[tcl::mathop::+ {*}$l] / double([llength $l])}
}

proc fmt {v f} {
	if {$v eq "NA"} { return n/a }
	format $f $v
}

set keys {cct payload data rtx trims ecn acks wall cpu rss_mib hops fct50 pauses}
set tsv [open [file join $opt(out) results.tsv] w]
puts $tsv [join [list load tool run {*}$keys] \t]
foreach row $rows {
	lassign $row load tool run r
	set vals {}
	foreach k $keys { lappend vals [dict get $r $k] }
	puts $tsv [join [list $load $tool $run {*}$vals] \t]
}
close $tsv

puts ""
puts [format "%-7s %-7s %4s %9s %11s %8s %7s %7s %7s %7s %7s %7s %7s %7s %9s" \
	load tool runs "CCT us" "min..max" Gb/s "data pk" trims ECN rtx ACKs wall_s cpu_s RSS_MiB kpkt/cpu_s]
foreach load $opt(loads) {
	set cmp {}
	foreach tool {mrcgen htsim} {
		set sel {}
		foreach row $rows {
			if {[lindex $row 0] eq $load && [lindex $row 1] eq $tool} { lappend sel [lindex $row 3] }
		}
		foreach k $keys {
			set col($k) {}
			foreach r $sel { lappend col($k) [dict get $r $k] }
		}
		set c [mean $col(cct)]
		set lo [tcl::mathfunc::min {*}$col(cct)]
		set hi [tcl::mathfunc::max {*}$col(cct)]
		set gbps [expr {[mean $col(payload)] * 8 / ($c * 1000.0)}]
		dict set cmp $tool cct $c
		dict set cmp $tool fct50 [mean $col(fct50)]
		dict set cmp $tool rss [mean $col(rss_mib)]
		dict set cmp $tool cpu [mean $col(cpu)]
		set rate NA
		if {[mean $col(cpu)] ne "NA" && [mean $col(cpu)] > 0} {
			set rate [expr {([mean $col(data)] + [mean $col(rtx)]) / [mean $col(cpu)] / 1000.0}]
		}
		puts [format "%-7s %-7s %4d %9.1f %11s %8.1f %7s %7s %7s %7s %7s %7s %7s %7s %9s" \
			$load $tool [llength $sel] $c [format "%.0f..%.0f" $lo $hi] $gbps \
			[fmt [mean $col(data)] %.0f] [fmt [mean $col(trims)] %.0f] [fmt [mean $col(ecn)] %.0f] \
			[fmt [mean $col(rtx)] %.0f] [fmt [mean $col(acks)] %.0f] [fmt [mean $col(wall)] %.2f] \
			[fmt [mean $col(cpu)] %.2f] [fmt [mean $col(rss_mib)] %.1f] [fmt $rate %.0f]]
		dict set cmp $tool rate $rate
	}
	lappend ratios [list $load $cmp]
	puts [format "%-7s mrcgen/htsim CCT %.3f, median flow %.3f (mrcgen %.1f us, htsim %.1f us)" \
		$load [expr {[dict get $cmp mrcgen cct] / [dict get $cmp htsim cct]}] \
		[expr {[dict get $cmp mrcgen fct50] / [dict get $cmp htsim fct50]}] \
		[dict get $cmp mrcgen fct50] [dict get $cmp htsim fct50]]
}

# Side by side, from the rows above (results.tsv): speed is mrcgen's kpkt/cpu_s over
# htsim's, memory is mrcgen's peak RSS per host over htsim's (both tools model $P(hosts)
# hosts in every load). Both come from this run: nothing here is a stored figure.
puts "\n# side by side: mrcgen over htsim, this run's rows; mean of $opt(runs) run(s), then per run:"

# run $r's figure for @load on @tool: kpkt/cpu_s (key rate) or RSS MiB (key rss); NA if none
proc run_fig {load tool run key} {
	foreach row $::rows {
		lassign $row l t n r
		if {$l ne $load || $t ne $tool || $n != $run} { continue }
		if {$key eq "rss"} { return [dict get $r rss_mib] }
		set c [dict get $r cpu]
		if {$c eq "NA" || $c <= 0} { return NA }
		return [expr {([dict get $r data] + [dict get $r rtx]) / $c / 1000.0}]
	}
	return NA
}

# "MEAN (LO-HI per run)" of mrcgen's figure over htsim's; n/a without CPU or RSS figures
proc ratio_text {load cmp key fmt} {
	set m [dict get $cmp mrcgen $key]
	set h [dict get $cmp htsim $key]
	if {$m eq "NA" || $h eq "NA" || $h <= 0} { return n/a }
	set per {}
	for {set run 1} {$run <= $::opt(runs)} {incr run} {
		set a [run_fig $load mrcgen $run $key]
		set b [run_fig $load htsim $run $key]
		if {$a ne "NA" && $b ne "NA" && $b > 0} { lappend per [expr {$a / $b}] }
	}
	set t [format $fmt [expr {$m / $h}]]
	if {[llength $per] > 1} {
		append t " ([format $fmt [tcl::mathfunc::min {*}$per]]-[format $fmt \
			[tcl::mathfunc::max {*}$per]] per run)"
	}
	return $t
}

foreach item $ratios {
	lassign $item load cmp
	set speed [ratio_text $load $cmp rate x%.2f]
	set mem [ratio_text $load $cmp rss %.2f]
	set mm [dict get $cmp mrcgen rss]
	set hm [dict get $cmp htsim rss]
	if {$mm ne "NA" && $hm ne "NA"} {
		append mem [format ": %.0f KB against %.0f KB" \
			[expr {$mm * 1024 / $P(hosts)}] [expr {$hm * 1024 / $P(hosts)}]]
	}
	set note ""
	foreach tool {mrcgen htsim} {
		set c [dict get $cmp $tool cpu]
		if {$c ne "NA" && $c < 0.1} {
			set note "\n        (cpu_s under 0.1 s: GNU time's 0.01 s steps make the speed rough)"
		}
	}
	puts [format "%-7s speed (kpkt/cpu_s) %s; memory per host (peak RSS / %d) %s%s" \
		$load $speed $P(hosts) $mem $note]
}
puts "\n# trims: mrcgen counts trims at switches; htsim counts NACKs received (one per trim)."
puts "# ECN: marked data packets (mrcgen: at switches; htsim: CE arrivals, from a -debug rerun)."
puts "# ACKs: mrcgen SACKs sent; htsim ACKs received. kpkt/cpu_s: data packets sent (new +"
puts "# retransmitted) per CPU second, in thousands. Per-run rows: $opt(out)/results.tsv"
