# SPDX-License-Identifier: BSD-2-Clause
# netns.tcl: a real SRv6 uSID fabric (RFC 9800 NEXT-CSID, F3216) in network namespaces,
# built with `ip` from the static tables `mrcgen paths CONF --json` prints.
#
#   plane p (one per NIC port)            h0 ... hN: one namespace per host; port p of a
#                                         host is interface "p<p>" in its namespace
#       T1 p.t1.0    T1 p.t1.1            T1 j: interface "l<i>" to T0 i
#          |   \    /   |                 T0 i: "h<n>" to host n, "s<j>" to T1 j
#          |    \  /    |                 every link: side a fe80::a, side b fe80::b
#          |     \/     |                 (host or T0 is side a), routes "via" the peer
#       T0 p.t0.0    T0 p.t0.1
#        /   \        /   \
#      h0.pp h1.pp  h2.pp h3.pp
#
# Switch routes: the uN route of the switch's own uSID
#   ip -6 route add <block>:<uSID>::/48 encap seg6local action End flavors next-csid \
#       lblen 32 nflen 16 dev un0
# where un0 is one end of a veth pair inside the switch: with "dev lo" the kernel (6.18)
# drops the shifted packet (Ip6InNoRoutes: the next-hop lookup refuses a loopback route
# device), and a port device would take the uN route away when that link goes down. And
# one /48 per neighbour uSID via the link to it. A host owns its port locators
# <block>:<port uSID>:: (/128, so the last uN's shifted DA is local and the protocol-41
# raw socket gets the inner packet) and its inner port addresses, and routes the /48 of
# its T0 in each plane out of that plane's port.
#
# Namespaces are named mrcnet-<pid>-<n>-<node>: parallel runs never collide and
# netns::cleanup_stale removes those whose creating process is gone.
#
# API:
#   netns::create CONF ?-sets {k=v ...}?   -> fabric handle (a dict)
#   netns::destroy FAB                     always safe, also on a half-built fabric
#   netns::with_fabric VAR CONF BODY       create, run BODY, destroy even on error
#   netns::ns FAB NODE                     namespace of "h3" or "p0.t0.1"
#   netns::link_down FAB A B / link_up     the link between nodes A and B ("p0.t0.0"
#                                          "p0.t1.1", or "h0.p0" "p0.t0.0"); up restores
#                                          addresses and routes
#   netns::mrcgen FAB HOST ARG...          mrcgen in the host's namespace (dict rc stdout
#                                          stderr, as the harness `mrcgen`)
#   netns::ip FAB NODE ARG...              `ip -n NS ARG...`, output returned
#   netns::cleanup_stale                   removes namespaces of dead runs
#   netns::link_loss FAB A B RATE          drops RATE (0..1) of what A sends B (netem, else
#                                          an nftables numgen rule); link_clear ends it
#   netns::start_hosts FAB CONF N SETS ?EXTRA? ?HOSTS? ?CMD?   one `mrcgen CMD` (run) per
#                                          host namespace, in the background: pids
#   netns::wait_hosts PIDS N               their exit statuses, dict hN -> rc

package require json

namespace eval ::netns {
	variable seq 0
	namespace export start_hosts wait_hosts
}

proc ::netns::sh {args} {
	return [exec {*}$args 2>@1]
}

proc ::netns::ip {fab node args} {
	return [sh ip -n [ns $fab $node] {*}$args]
}

proc ::netns::ns {fab node} {
	set nss [dict get $fab ns]
	if {![dict exists $nss $node]} {
		error "netns: node: no such node '$node'"
	}
	return [dict get $nss $node]
}

# Removes mrcnet-PID-* namespaces whose PID no longer runs.
proc ::netns::cleanup_stale {} {
	foreach line [split [sh ip netns list] \n] {
		set name [lindex $line 0]
		if {[regexp {^mrcnet-([0-9]+)-} $name -> pid] && ![file exists /proc/$pid]} {
			catch {sh ip netns del $name}
		}
	}
}

# The interface on NODE that leads to node TO (names as in the picture above).
proc ::netns::ifname {node to} {
	if {[regexp {^h[0-9]+\.p([0-9]+)$} $node -> p]} {
		return p$p
	}
	if {[regexp {^h([0-9]+)\.p[0-9]+$} $to -> h]} {
		return h$h
	}
	if {[regexp {^p[0-9]+\.t1\.([0-9]+)$} $to -> j]} {
		return s$j
	}
	if {[regexp {^p[0-9]+\.t0\.([0-9]+)$} $to -> i]} {
		return l$i
	}
	error "netns: ifname: no link from '$node' to '$to'"
}

proc ::netns::sysctl {ns args} {
	sh ip netns exec $ns sysctl -q -w {*}$args
}

proc ::netns::create {conf args} {
	variable seq
	set sets {}
	foreach {k v} $args {
		switch -- $k {
			-sets { set sets $v }
			default { error "netns::create: option: unknown '$k'" }
		}
	}
	cleanup_stale
	set argv [list paths $conf --json]
	foreach kv $sets {
		lappend argv --set $kv
	}
	set json [exec $::mrcgen {*}$argv]
	set d [json::json2dict $json]
	set prefix mrcnet-[pid]-[incr seq]
	set fab [dict create prefix $prefix ns {} links {} routes {} addrs {} \
		fabric [dict get $d fabric]]
	if {[catch {build fab $d} msg opts]} {
		destroy $fab
		return -options $opts $msg
	}
	return $fab
}

proc ::netns::add_ns {fabvar node forwarding} {
	upvar 1 $fabvar fab
	set name [dict get $fab prefix]-$node
	sh ip netns add $name
	dict set fab ns $node $name
	sh ip -n $name link set lo up
	sysctl $name net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.keep_addr_on_down=1 net.ipv6.conf.default.keep_addr_on_down=1 \
		net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.default.seg6_enabled=1 \
		net.ipv6.conf.all.forwarding=$forwarding
	return $name
}

# Appends ITEM to the list under KEY of the dict in field FIELD of the fabric.
proc ::netns::record {fabvar field key item} {
	upvar 1 $fabvar fab
	set l {}
	if {[dict exists $fab $field $key]} {
		set l [dict get $fab $field $key]
	}
	lappend l $item
	dict set fab $field $key $l
}

# Records an address or route so link_up can restore it; runs it now.
proc ::netns::add_addr {fabvar node dev addr} {
	upvar 1 $fabvar fab
	record fab addrs "$node $dev" $addr
	sh ip -n [ns $fab $node] -6 addr add $addr dev $dev nodad
}

proc ::netns::add_route {fabvar node dev route} {
	upvar 1 $fabvar fab
	record fab routes "$node $dev" $route
	sh ip -n [ns $fab $node] -6 route add {*}$route
}

# One veth between node A (side a, fe80::a) and node B (side b, fe80::b).
proc ::netns::add_link {fabvar a b} {
	upvar 1 $fabvar fab
	set ia [ifname $a $b]
	set ib [ifname $b $a]
	set na [ns $fab [hostof $a]]
	set nb [ns $fab [hostof $b]]
	# jumbo frames, as on RoCE fabrics: a 4096-byte MTU packet with its outer and inner
	# headers is ~4.2 kB, and a header-included raw send above the MTU fails (EMSGSIZE)
	sh ip -n $na link add $ia mtu 9216 type veth peer name $ib mtu 9216 netns $nb
	dict set fab links "$a $b" [list $a $ia $b $ib]
	foreach {node dev ll} [list $a $ia fe80::a/64 $b $ib fe80::b/64] {
		sysctl [ns $fab [hostof $node]] net.ipv6.conf.$dev.seg6_enabled=1
		add_addr fab [hostof $node] $dev $ll
		sh ip -n [ns $fab [hostof $node]] link set $dev up
	}
}

# "h3.p1" is port 1 of host h3: its namespace is the host's.
proc ::netns::hostof {node} {
	if {[regexp {^(h[0-9]+)\.p[0-9]+$} $node -> h]} {
		return $h
	}
	return $node
}

proc ::netns::build {fabvar d} {
	upvar 1 $fabvar fab
	set f [dict get $d fabric]
	set planes [dict get $f planes]
	set hosts [expr {[dict get $f t0] * [dict get $f hosts_per_t0]}]
	for {set h 0} {$h < $hosts} {incr h} {
		add_ns fab h$h 0
	}
	set tables [dict get $d tables]
	foreach t $tables {
		set ns [add_ns fab [dict get $t switch] 1]
		# The uN route's device: a veth pair inside the switch (see the header).
		sh ip -n $ns link add un0 mtu 9216 type veth peer name un1 mtu 9216
		sh ip -n $ns link set un0 up
		sh ip -n $ns link set un1 up
	}
	# Links: host ports to their T0, T0s to T1s (from the T0 tables).
	foreach t $tables {
		set sw [dict get $t switch]
		if {![string match p*.t0.* $sw]} {
			continue
		}
		foreach r [dict get $t routes] {
			set to [dict get $r to]
			if {[dict get $r action] ne "forward"} {
				continue
			}
			if {[string match h*.p* $to]} {
				add_link fab $to $sw
			} else {
				add_link fab $sw $to
			}
		}
	}
	# Each switch's own uN prefix.
	set unpfx {}
	foreach t $tables {
		foreach r [dict get $t routes] {
			if {[dict get $r action] eq "uN"} {
				dict set unpfx [dict get $t switch] [dict get $r prefix]
			}
		}
	}
	# Switch routes.
	foreach t $tables {
		set sw [dict get $t switch]
		foreach r [dict get $t routes] {
			set pfx [dict get $r prefix]
			if {[dict get $r action] eq "uN"} {
				add_route fab $sw un0 [list $pfx encap seg6local action End \
					flavors next-csid lblen 32 nflen 16 dev un0]
				continue
			}
			set to [dict get $r to]
			set dev [ifname $sw $to]
			set peer [expr {[dict exists [dict get $fab links] "$sw $to"] ? \
				"fe80::b" : "fe80::a"}]
			add_route fab $sw $dev [list $pfx via $peer dev $dev]
			# A host port's /48 is that port's locator: the host owns it.
			if {[string match h*.p* $to]} {
				set loc [string map {/48 /128} $pfx]
				regexp {^(h[0-9]+)\.p([0-9]+)$} $to -> h p
				add_addr fab $h p$p $loc
				add_route fab $h p$p [list [dict get $unpfx $sw] via fe80::b dev p$p]
			}
		}
	}
	# Inner port addresses (what the probes carry inside), from the path list.
	foreach p [dict get $d paths] {
		set h [dict get $p src]
		set key "$h p[dict get $p plane]"
		if {![dict exists $fab addrs $key] ||
		    "[dict get $p src_addr]/128" ni [dict get $fab addrs $key]} {
			add_addr fab $h p[dict get $p plane] [dict get $p src_addr]/128
		}
	}
}

proc ::netns::destroy {fab} {
	foreach {node name} [dict get $fab ns] {
		catch {sh ip netns del $name}
	}
}

proc ::netns::with_fabric {var conf body} {
	upvar 1 $var fab
	set fab [create $conf]
	set code [catch {uplevel 1 $body} msg opts]
	destroy $fab
	return -options $opts $msg
}

proc ::netns::link_key {fab a b} {
	set links [dict get $fab links]
	if {[dict exists $links "$a $b"]} {
		return "$a $b"
	}
	if {[dict exists $links "$b $a"]} {
		return "$b $a"
	}
	error "netns: link: no link between '$a' and '$b'"
}

# The namespace and interface by which node A sends to node B over their link.
proc ::netns::egress {fab a b} {
	lassign [dict get $fab links [link_key $fab $a $b]] na ia nb ib
	if {$na eq $a} {
		return [list [ns $fab [hostof $na]] $ia]
	}
	return [list [ns $fab [hostof $nb]] $ib]
}

# Drops RATE (0..1) of the packets node A sends node B (one direction of their link), ICMPv6
# spared: neighbour discovery must resolve the peer, or the kernel holds every packet for it
# until its next solicitation a second later (a lost first one silenced the link for a whole
# sweep). netem when the kernel has it (filtered to what is not ICMPv6), else
# (CONFIG_NET_SCH_NETEM unset) an nftables rule that drops by numgen random on the egress
# interface, after routing (postrouting: forwarded and local packets alike).
proc ::netns::link_loss {fab a b rate} {
	lassign [egress $fab $a $b] ns dev
	set pct [format %.4f [expr {100.0 * $rate}]]
	# netem on band 2 of a prio qdisc; ICMPv6 (next header 58) filtered to band 1
	if {![catch {
		sh ip netns exec $ns tc qdisc add dev $dev root handle 1: prio \
			priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
		sh ip netns exec $ns tc qdisc add dev $dev parent 1:2 netem loss $pct%
		sh ip netns exec $ns tc filter add dev $dev parent 1: protocol ipv6 u32 \
			match ip6 protocol 58 0xff flowid 1:1
	}]} {
		return netem
	}
	catch {sh ip netns exec $ns tc qdisc del dev $dev root}
	set per [expr {int(round($rate * 1000000))}]
	sh ip netns exec $ns nft add table ip6 mrcloss
	sh ip netns exec $ns nft add chain ip6 mrcloss post \
		"{ type filter hook postrouting priority 0; }"
	sh ip netns exec $ns nft add rule ip6 mrcloss post oifname $dev \
		meta l4proto != ipv6-icmp numgen random mod 1000000 lt $per drop
	return nft
}

# Ends the loss link_loss put on A's side of the link to B.
proc ::netns::link_clear {fab a b} {
	lassign [egress $fab $a $b] ns dev
	catch {sh ip netns exec $ns tc qdisc del dev $dev root}
	catch {sh ip netns exec $ns nft delete table ip6 mrcloss}
}

# Takes both ends of the link administratively down.
proc ::netns::link_down {fab a b} {
	lassign [dict get $fab links [link_key $fab $a $b]] na ia nb ib
	sh ip -n [ns $fab [hostof $na]] link set $ia down
	sh ip -n [ns $fab [hostof $nb]] link set $ib down
}

# Brings both ends up and restores their addresses and routes (the kernel drops IPv6
# routes of a device that goes down).
proc ::netns::link_up {fab a b} {
	lassign [dict get $fab links [link_key $fab $a $b]] na ia nb ib
	foreach {node dev} [list [hostof $na] $ia [hostof $nb] $ib] {
		sh ip -n [ns $fab $node] link set $dev up
	}
	# Routes via a gateway are refused until the device has its carrier.
	foreach {node dev} [list [hostof $na] $ia [hostof $nb] $ib] {
		for {set i 0} {$i < 100} {incr i} {
			if {[string match *LOWER_UP* [sh ip -n [ns $fab $node] link show dev $dev]]} {
				break
			}
			after 20
		}
	}
	foreach {node dev} [list [hostof $na] $ia [hostof $nb] $ib] {
		set key "$node $dev"
		if {[dict exists $fab addrs $key]} {
			foreach a [dict get $fab addrs $key] {
				catch {sh ip -n [ns $fab $node] -6 addr add $a dev $dev nodad}
			}
		}
		if {[dict exists $fab routes $key]} {
			foreach r [dict get $fab routes $key] {
				sh ip -n [ns $fab $node] -6 route replace {*}$r
			}
		}
	}
}

# mrcgen ARG... inside HOST's namespace, with the harness's `mrcgen` result dict.
proc ::netns::mrcgen {fab host args} {
	set timeout [dict get $::harness::cfg timeout]
	return [::harness::run_child $timeout {} 0 \
		[list ip netns exec [ns $fab $host] $::mrcgen {*}$args]]
}

# Starts `mrcgen CMD CONF --host hN` (CMD: run, or sweep) for every host in its namespace
# (or those of HOSTS), in the background, each under `timeout` (SIGTERM at 120 s or the
# runner's --timeout if less, SIGKILL 5 s later: a rank hung past its signal handling dies
# too) so none can outlive the test;
# returns the list of pids. Each writes its mrcgen's pid to pid.hN, its exit status to rc.hN and its output to
# out.hN / err.hN in the test directory.
proc ::netns::start_hosts {fab conf nhosts sets {extra {}} {hosts {}} {cmd run}} {
	set pids {}
	if {$hosts eq {}} {
		for {set h 0} {$h < $nhosts} {incr h} {
			lappend hosts $h
		}
	}
	set limit [expr {min(120, [dict get $::harness::cfg timeout])}]
	foreach h $hosts {
		# sh records its pid and execs `ip netns exec`, which execs mrcgen: the same pid
		set argv [list timeout -k 5 $limit sh -c "echo \$\$ >pid.h$h; exec \"\$@\"" sh \
			ip netns exec [netns::ns $fab h$h] $::mrcgen $cmd $conf \
			--host h$h --rendezvous unix:rv.sock --timeout-ms 20000 \
			--set fabric.driver=wire -o [pwd]/out {*}$extra]
		foreach kv $sets {
			lappend argv --set $kv
		}
		# the status lands whole (rename): a wait on rc.h* never reads an empty file
		set sh_cmd "[join [lmap a $argv {::harness::shell_quote $a}]] >out.h$h 2>err.h$h;\
			echo \$? >.rc.h$h; mv .rc.h$h rc.h$h"
		lappend pids [exec sh -c $sh_cmd &]
	}
	return $pids
}

# Waits (bounded) for every host's exit status; returns dict hN -> rc.
proc ::netns::wait_hosts {pids nhosts} {
	wait_for_condition 1500 100 {[llength [glob -nocomplain rc.h*]] == $nhosts} else {
		foreach p $pids {
			catch {exec kill $p}
		}
		fail "hosts still running after 150 s: [glob -nocomplain rc.h*] done"
	}
	set rcs {}
	for {set h 0} {$h < $nhosts} {incr h} {
		dict set rcs h$h [string trim [read_file rc.h$h]]
	}
	return $rcs
}
