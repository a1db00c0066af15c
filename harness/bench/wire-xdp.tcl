# SPDX-License-Identifier: BSD-2-Clause
# wire-xdp.tcl: `mrcgen bench wire-xdp` (issue 22, docs/wire-xdp.md "Benchmark") — the xdp
# dataplane against the AF_XDP blaster and against the raw sockets, in one run, on two
# setups built from harness/bench/wire.yaml:
#
#   direct   h0 ==== 2 veth pairs (p0, p1) ==== h1      no switch; one T0 in the plan
#   fabric   h0 == 2 planes x (2 T0 + 2 T1) == h1       the netns SRv6 fabric of wire.tcl
#
# Three senders each, a sendrecv h0 <-> h1 of 4096-byte payloads:
#   blast-xdp   `mrcgen blast` on AF_XDP: the same data packets from UMEM, no transport
#   mrc-xdp     `mrcgen run` on the xdp dataplane, one thread (the default), then one
#               thread per port (wire.xdp_threads 0: mrc-xdp-2t)
#   mrc-socket  `mrcgen run` on raw sockets
# On the direct pair the AF_XDP senders use EV format stev (UDP 4791 to the peer's inner
# address, which its XDP program takes: nothing shifts a uSID container there), the raw
# sockets srv6 with the peer's kernel doing the T0's uN (End, next-csid) on arrival.
#
# Per sender: payload packets/s and Gb/s over wall time, CPU seconds of the whole machine
# over the run (/proc/stat: user, nice, system, irq, softirq, steal — the kernel's softirq
# work counts on every side; other load on the machine counts too), the processes' own
# (user + sys), and payload packets per machine CPU-second ("per core"). Then
#   ratio_vs_blast=  mrc-xdp / blast-xdp per core      (goal >= 0.8 on the direct pair)
#   ratio_vs_socket= mrc-xdp / mrc-socket per core     (goal >= 2 on the direct pair)
# Timings are printed, never asserted.
#
# usage: tclsh harness/bench/wire-xdp.tcl [--mrcgen PATH] [--setup direct|fabric|both]
#        [--rounds N] [--set K=V]...
# Exit 0 (also when skipped: not root, no `ip netns`), 1 when a run failed.

package require Tcl 8.6
package require json

set ::top [file dirname [file dirname [file dirname [file normalize [info script]]]]]
set ::mrcgen [file join $::top mrcgen]
set rounds 1
set sets {}
source [file join $::top harness bench wirelib.tcl]
set setup both
bench_options wire-xdp.tcl $argv {--setup setup}
set setups [expr {$setup eq "both" ? {direct fabric} : $setup}]
bench_need_root "wire-xdp bench" ""

source [file join $::top harness lib netns.tcl]

set conf [file join $::top harness bench wire.yaml]
set work [file join $::top harness out bench-wire-xdp-[pid]]
file mkdir $work
cd $work

set ::hz [exec getconf CLK_TCK]

# The machine's busy CPU time so far, s: /proc/stat's first line less idle and iowait.
proc busy_s {} {
	set f [open /proc/stat]
	set l [gets $f]
	close $f
	lassign $l - user nice system idle iowait irq softirq steal
	return [expr {double($user + $nice + $system + $irq + $softirq + $steal) / $::hz}]
}

# The direct setup: namespaces h0 and h1, veth pP <-> pP for every plane, each port with
# its locator and inner address (as `mrcgen paths` gives them with one T0), and what each
# dataplane needs. AF_XDP (stev): the peer's inner address on link. Raw sockets (srv6):
# the T0's uN prefix via the peer, and on each port the containers that arrive there
# (block:T0:port::) as local addresses, so the kernel hands them to the protocol-41
# socket as a T0 would once its uN had shifted them. (No uN can run at the receiver: the
# End behaviour never delivers locally, its next-hop lookup refuses a local route; and
# the raw send sockets are bound to their port, so no loop through the sender either.)
proc direct_create {conf sets} {
	set argv [list paths $conf --json --set fabric.t0=1 --set fabric.hosts_per_t0=2]
	foreach kv $sets {
		lappend argv --set $kv
	}
	set d [json::json2dict [exec $::mrcgen {*}$argv]]
	set planes [dict get $d fabric planes]
	set prefix mrcdirect-[pid]
	set fab [dict create ns [dict create h0 $prefix-h0 h1 $prefix-h1] added {}]
	foreach h {h0 h1} {
		set ns [netns::ns $fab $h]
		netns::sh ip netns add $ns
		netns::sh ip -n $ns link set lo up
		netns::sysctl $ns net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	}
	for {set p 0} {$p < $planes} {incr p} {
		netns::sh ip -n $prefix-h0 link add p$p mtu 9216 type veth peer name p$p mtu 9216 \
			netns $prefix-h1
		foreach {h ll} {h0 fe80::a/64 h1 fe80::b/64} {
			netns::sh ip -n [netns::ns $fab $h] -6 addr add $ll dev p$p nodad
			netns::sh ip -n [netns::ns $fab $h] link set p$p up
		}
	}
	foreach t [dict get $d tables] {
		if {![regexp {^p([0-9]+)\.t0\.} [dict get $t switch] -> p]} {
			continue
		}
		foreach r [dict get $t routes] {
			set pfx [dict get $r prefix]
			if {[dict get $r action] eq "uN"} {
				netns::sh ip -n $prefix-h0 -6 route add $pfx via fe80::b dev p$p
				netns::sh ip -n $prefix-h1 -6 route add $pfx via fe80::a dev p$p
			} elseif {[regexp {^(h[01])\.p[0-9]+$} [dict get $r to] -> h]} {
				netns::sh ip -n [netns::ns $fab $h] -6 addr add \
					[string map {/48 /128} $pfx] dev p$p nodad
			}
		}
	}
	foreach path [dict get $d paths] {
		set h [dict get $path src]
		set peer [dict get $path dst]
		set dev p[dict get $path plane]
		foreach {who addr} [list $h [dict get $path src_addr] $peer \
			[dict get $path container]] {
			if {![dict exists $fab added "$who $addr"]} {
				dict set fab added "$who $addr" 1
				netns::sh ip -n [netns::ns $fab $who] -6 addr add $addr/128 dev $dev \
					nodad
			}
		}
		if {![dict exists $fab added "route $h [dict get $path dst_addr]"]} {
			dict set fab added "route $h [dict get $path dst_addr]" 1
			netns::sh ip -n [netns::ns $fab $h] -6 route add \
				[dict get $path dst_addr]/128 dev $dev
		}
	}
	return $fab
}

proc direct_destroy {fab} {
	dict for {node name} [dict get $fab ns] {
		catch {netns::sh ip netns del $name}
	}
}

# Runs BODY (a script returning a result dict) and adds the machine's busy CPU seconds
# over it as "mcpu".
proc measured {body} {
	set b0 [busy_s]
	set d [uplevel 1 $body]
	dict set d mcpu [expr {[busy_s] - $b0}]
	return $d
}

proc row {name d} {
	set pps [expr {[dict get $d pkts] / [dict get $d wall]}]
	set gbps [expr {[dict get $d bytes] * 8 / [dict get $d wall] / 1e9}]
	set ppc [expr {[dict get $d pkts] / [dict get $d mcpu]}]
	puts [format "%-12s %10d %8.3f %10.0f %7.2f %7.2f %7.2f %10.0f" $name [dict get $d pkts] \
		[dict get $d wall] $pps $gbps [dict get $d mcpu] [dict get $d cpu] $ppc]
	return $ppc
}

proc bench_setup {setup conf sets rounds} {
	if {$setup eq "direct"} {
		set fab [direct_create $conf $sets]
		set base [concat $sets {fabric.t0=1 fabric.hosts_per_t0=2}]
		set xset [concat $base {mrc.ev_format=stev wire.dataplane=xdp}]
	} else {
		set fab [netns::create $conf -sets $sets]
		set base $sets
		set xset [concat $base {wire.dataplane=xdp}]
	}
	set code [catch {
		puts "wire-xdp bench: $setup: sendrecv h0 <-> h1, 4096-byte payloads,\
			[exec nproc] CPUs; machine CPU from /proc/stat"
		puts [format "%-12s %10s %8s %10s %7s %7s %7s %10s" sender payload_pk wall_s pps \
			Gb/s cpu_s proc_s pps/core]
		for {set r 1} {$r <= $rounds} {incr r} {
			set mx [measured {run_mrcgen $fab $::conf $xset $setup-x$r}]
			set mx2 [measured {run_mrcgen $fab $::conf [concat $xset wire.xdp_threads=0] \
				$setup-t$r}]
			set ms [measured {run_mrcgen $fab $::conf $base $setup-s$r}]
			# as many packets each way as the endpoint's first transmissions
			set b [measured {run_blast $fab $::conf $xset [expr {[dict get $mx pkts] / 2}] \
				$setup-b$r}]
			set pb [row blast-xdp $b]
			set px [row mrc-xdp $mx]
			set px2 [row mrc-xdp-2t $mx2]
			set ps [row mrc-socket $ms]
			puts [format "%s round %d: ratio_vs_blast=%.2f ratio_vs_socket=%.2f\
				threads_2_vs_1=%.2f (mrc-xdp %d retransmitted, blast %d drops)" $setup $r \
				[expr {$px / $pb}] [expr {$px / $ps}] [expr {$px2 / $px}] \
				[dict get $mx rtx] [dict get $b drops]]
		}
	} msg opts]
	if {$setup eq "direct"} {
		direct_destroy $fab
	} else {
		netns::destroy $fab
	}
	return -options $opts $msg
}

set status 0
foreach setup $setups {
	if {[catch {bench_setup $setup $conf $sets $rounds} msg]} {
		puts stderr "wire-xdp bench: $setup: $msg"
		set status 1
	}
}
cd $::top
file delete -force $work
exit $status
