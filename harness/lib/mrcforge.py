#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""mrcforge: forged, spoofed and replayed MRC packets for the netns tests (netns-run.test).

Builds packets of EV format srv6 as docs/wire-format.md lays them out ("Packet stack",
"BTH", "Control headers", "ICRC", "Checksums"), sends them from the network namespace it
runs in through a header-included raw socket (routed by the outer destination, a uSID
container from `mrcgen paths --json`), and captures a port's packets to replay them.

  mrcforge.py check PCAP             every packet's ICRC and UDP checksum recomputed
                                     must match (the sample pcap of `mrcgen sample`)
  mrcforge.py send JSON              sends the packets JSON describes (see send())
  mrcforge.py capture IF N OUT [DST] writes the first N MRC packets sent out of IF (with
                                     DST: the first N in a row, one or more of them for
                                     inner address DST)
  mrcforge.py replay IN REDIRECT [DST=CONTAINER]...
                                     resends IN's packets for inner address DST to its
                                     CONTAINER, then every one to REDIRECT; prints
                                     "to ADDR: N" per inner destination
Prints what it sent: "sent N".
"""
import collections
import ipaddress
import json
import socket
import struct
import sys
import time
import zlib

UDP_PORT = 4791
OP_WRITE_ONLY, OP_SACK = 0xCA, 0xDC


def csum16(b, init=0):
    """The Internet checksum's one's complement sum of @b (padded to 16 bits) plus @init."""
    if len(b) % 2:
        b += b"\0"
    s = init + sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def icrc(inner):
    """RoCEv2 ICRC of the inner IPv6 packet @inner (ICRC excluded), as sent (LSB first)."""
    m = bytearray(inner)
    m[0] |= 0x0F
    m[1:4] = b"\xff\xff\xff"  # traffic class and flow label
    m[7] = 0xFF  # hop limit
    m[46:48] = b"\xff\xff"  # UDP checksum
    m[52] = 0xFF  # BTH byte 4 (reserved)
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)


def finish(inner):
    """Appends the ICRC to @inner (UDP checksum 0 in it) and fills the UDP checksum."""
    pkt = bytearray(inner + icrc(inner))
    udp = pkt[40:]
    pseudo = pkt[8:40] + struct.pack("!IxxxB", len(udp), 17)
    c = (~csum16(bytes(pseudo) + bytes(udp))) & 0xFFFF
    pkt[46:48] = struct.pack("!H", c or 0xFFFF)
    return bytes(pkt)


def ip6(addr):
    return ipaddress.IPv6Address(addr).packed


def ip6_hdr(src, dst, nh, plen, ev, dscp, ecn):
    vtf = 6 << 28 | (dscp << 2 | ecn) << 20 | (ev & 0xFFFF)
    return struct.pack("!IHBB", vtf, plen, nh, 64) + ip6(src) + ip6(dst)


def inner_pkt(src, dst, ev, dscp, bth_rest):
    """The inner IPv6 packet (checksums filled) carrying BTH and what follows it."""
    udp_len = 8 + len(bth_rest) + 4
    udp = struct.pack("!HHHH", ev >> 16, UDP_PORT, udp_len, 0)
    return finish(ip6_hdr(src, dst, 17, udp_len, ev, dscp, 2) + udp + bth_rest)


def bth(opcode, dest_qp, flags, psn, pad=0):
    return struct.pack("!BBHII", opcode, pad << 4, 0, dest_qp & 0xFFFFFF,
                       flags << 24 | (psn & 0xFFFFFF))


def sack(dest_qp, ev, cack, pr, tx_ts_echo):
    """A SACK (SETH + CC_STATE) acknowledging @cack alone, answering a probe when @pr."""
    seth = struct.pack("!HhIHHI BBhQ".replace(" ", ""), (1 << 1) if pr else 0, 0, ev, 0, 0,
                       cack & 0xFFFFFF, 0, 0, 0, 0)
    cc = struct.pack("!HHHH", tx_ts_echo & 0xFFFF, 0, 0, 0)
    return bth(OP_SACK, dest_qp, 0, 0) + seth + cc


def write_only(dest_qp, psn, va, rkey, payload):
    pad = -len(payload) % 4
    meth = struct.pack("!HH", 0, 0)
    reth = struct.pack("!QII", va, rkey, len(payload))
    return bth(OP_WRITE_ONLY, dest_qp, 0x80, psn, pad) + meth + reth + payload + b"\0" * pad


def outer(container, src, inner, ev):
    """The whole packet: the outer IPv6 header (next header 41) to @container."""
    tclass = (inner[0] & 0xF) << 4 | inner[1] >> 4
    return ip6_hdr(src, container, 41, len(inner), ev, tclass >> 2, tclass & 3) + inner


class Sender:
    """A header-included raw socket: the kernel routes each packet by its outer DA."""

    def __init__(self):
        self.s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.n = 0

    def send(self, pkt):
        dst = str(ipaddress.IPv6Address(pkt[24:40]))
        self.s.sendto(pkt, (dst, 0))
        self.n += 1


def send(spec):
    """Sends what @spec (a JSON object) describes: "container" and "outer_src" (the path),
    "src" and "dst" (inner addresses), "count" rounds "interval_ms" apart, each of one
    packet per EV of "evs" by "kind": "write" (a WRITE_ONLY of "len" bytes to "qp" at
    "va"/"rkey", PSN "psn" + the round), or "probe_answer" (a SACK with pr = 1 to "qp",
    cumulative PSN "cack", echoing tx_ts "tx_ts"). "mangle" breaks each packet after it is
    built: "inner_v4" gives the inner header version 4 (an XDP program drops it as
    malformed), "icrc" flips a bit of the ICRC (an endpoint counts a decode error)."""
    s = Sender()
    evs = [int(e, 0) for e in spec["evs"]]
    for i in range(spec["count"]):
        if i and spec.get("interval_ms"):
            time.sleep(spec["interval_ms"] / 1000.0)  # pacing, not synchronisation
        for e in evs:
            if spec["kind"] == "write":
                x = write_only(spec["qp"], spec["psn"] + i, spec["va"], spec["rkey"],
                               bytes([0xEE]) * spec["len"])
                dscp = 26
            else:
                x = sack(spec["qp"], e, spec["cack"], True, spec["tx_ts"])
                dscp = 46
            pkt = bytearray(outer(spec["container"], spec["outer_src"],
                                  inner_pkt(spec["src"], spec["dst"], e, dscp, x), e))
            if spec.get("mangle") == "inner_v4":
                pkt[40] = 0x45
            elif spec.get("mangle") == "icrc":
                pkt[-1] ^= 0x01
            s.send(bytes(pkt))
    return s.n


def is_mrc(inner):
    return len(inner) >= 64 and inner[0] >> 4 == 6 and inner[6] == 17 and \
        struct.unpack("!H", inner[42:44])[0] == UDP_PORT


def capture(ifname, n, out, want=None, timeout_s=30):
    """The first @n MRC packets (outer IPv6, next header 41) leaving @ifname within
    @timeout_s seconds, one per line in hex into @out; with @want (an IPv6 address), the
    first @n in a row of which one or more is for inner address @want (a host that sends
    only SACKs for a while is waited out). Outgoing packets reach only a packet socket of
    every protocol (ETH_P_ALL), not one bound to IPv6's."""
    eth_p_all = 3
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(eth_p_all))
    s.bind((ifname, eth_p_all))
    s.settimeout(timeout_s)
    want = socket.inet_pton(socket.AF_INET6, want) if want else None
    got = collections.deque(maxlen=n)
    try:
        while len(got) < n or (want and not any(p[40 + 24:40 + 40] == want for p in got)):
            pkt, addr = s.recvfrom(65536)
            if addr[2] == socket.PACKET_OUTGOING and addr[1] == 0x86DD and \
                    len(pkt) > 40 and pkt[6] == 41 and is_mrc(pkt[40:]):
                got.append(pkt)
    except socket.timeout:
        pass
    with open(out, "w") as f:
        f.write("\n".join(p.hex() for p in got) + "\n")
    return len(got)


def replay(path, redirect, routes):
    """Sends the packets of @path (capture()) again: those whose inner destination @routes
    maps ({inner address: container}) to that container, as they were, then every one to
    the container @redirect. The outer header is rebuilt (the destination, hop limit 64):
    a captured one may show the first switch's uSID shift, which edits the packet the
    capture shares; the ICRC and the UDP checksum cover the inner packet only. Prints how
    many went to each inner destination."""
    s = Sender()
    pkts = [bytes.fromhex(line) for line in open(path).read().split()]
    dsts = {}
    for p in pkts:
        d = str(ipaddress.IPv6Address(p[64:80]))
        dsts[d] = dsts.get(d, 0) + 1
        if d in routes:
            s.send(p[:7] + b"\x40" + p[8:24] + ip6(routes[d]) + p[40:])
    for p in pkts:
        s.send(p[:7] + b"\x40" + p[8:24] + ip6(redirect) + p[40:])
    for d in sorted(dsts):
        print("to %s: %d" % (d, dsts[d]))
    return s.n


def check(path):
    """Recomputes the ICRC and UDP checksum of every packet of a raw-IPv6 pcap."""
    d = open(path, "rb").read()
    off, bad, n = 24, 0, 0
    while off < len(d):
        incl = struct.unpack("<I", d[off + 8:off + 12])[0]
        p = d[off + 16:off + 16 + incl]
        off += 16 + incl
        inner = p[40:] if p[6] == 41 else p
        if not is_mrc(inner):
            continue
        n += 1
        body = bytearray(inner[:-4])
        body[46:48] = b"\0\0"
        if finish(bytes(body)) != inner:
            bad += 1
    print("checked %d, %d differ" % (n, bad))
    return bad == 0 and n > 0


def main(argv):
    if argv[1:2] == ["check"]:
        return 0 if check(argv[2]) else 1
    if argv[1:2] == ["send"]:
        n = send(json.loads(open(argv[2]).read()))
    elif argv[1:2] == ["capture"]:
        n = capture(argv[2], int(argv[3]), argv[4], argv[5] if len(argv) > 5 else None)
    elif argv[1:2] == ["replay"]:
        n = replay(argv[2], argv[3], dict(a.split("=", 1) for a in argv[4:]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("sent %d" % n if argv[1] != "capture" else "captured %d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
