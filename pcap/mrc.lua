-- SPDX-License-Identifier: BSD-2-Clause
-- mrc.lua: Wireshark/tshark dissector for MRC (Multipath Reliable Connection) on UDP 4791,
-- layouts of docs/wire-format.md ("Packet stack", "Opcodes", "Control headers").
--
-- Use: tshark -X lua_script:pcap/mrc.lua -r f.pcap -V   (or copy it into the Wireshark
-- personal plugins folder). MRC opcodes 0xC6-0xDE and RoCEv2's CNP (0x81, the RoCE
-- baseline's DCQCN) are decoded here; every other opcode (standard IBTA RoCEv2) is handed to
-- the built-in InfiniBand dissector.

local mrc = Proto("mrc", "MRC (Multipath Reliable Connection)")

local band, bor, bxor, rshift = bit32.band, bit32.bor, bit32.bxor, bit32.rshift

local OP = {
	WRITE_FIRST = 0xC6, WRITE_MIDDLE = 0xC7, WRITE_LAST = 0xC8, WRITE_LAST_IMM = 0xC9,
	WRITE_ONLY = 0xCA, WRITE_ONLY_IMM = 0xCB, ACK = 0xD1, EP_REQUEST = 0xD8,
	EP_RESPONSE = 0xD9, SACK = 0xDC, NACK = 0xDD, PROBE = 0xDE, CNP = 0x81,
}
local op_names = {}
for name, v in pairs(OP) do op_names[v] = name end

local nack_reasons = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x0A] = "NO_RESOURCE", [0x0B] = "PSN_OOR_WINDOW",
	[0x19] = "UNEXP_EVENT",
}
local sack_m_names = { [0] = "NONE", [1] = "SKIP_ONCE (EV saw ECN)",
	[2] = "ALWAYS_SKIP (EV is bad)", [3] = "reserved" }
local ep_ops = { [0] = "PORT_STATUS_UPDATE", [1] = "EV_PROBE" }

-- Sizes of the headers after BTH (docs/wire-format.md).
local LEN = { BTH = 12, METH = 4, TSETH = 4, RETH = 16, IMM = 4, AETH = 4, SETH = 28,
	CC_STATE = 8, NETH = 20, PETH = 16, ERTH = 16, EETH = 36, CNP = 16, ICRC = 4 }

local F = {}
local function add(name, field) F[name] = field end

-- BTH
add("opcode", ProtoField.uint8("mrc.opcode", "Opcode", base.HEX, op_names))
add("se", ProtoField.bool("mrc.se", "Solicited Event", 8, nil, 0x80))
add("mig", ProtoField.bool("mrc.mig", "MigReq", 8, nil, 0x40))
add("padcnt", ProtoField.uint8("mrc.padcnt", "Pad Count", base.DEC, nil, 0x30))
add("tver", ProtoField.uint8("mrc.tver", "Transport Header Version", base.DEC, nil, 0x0F))
add("pkey", ProtoField.uint16("mrc.pkey", "Partition Key", base.HEX))
add("bth_rsvd", ProtoField.uint8("mrc.bth.rsvd", "Reserved", base.HEX))
add("fecn", ProtoField.bool("mrc.bth.fecn", "FECN", 8, nil, 0x80))
add("becn", ProtoField.bool("mrc.bth.becn", "BECN (set on a CNP)", 8, nil, 0x40))
add("cnp_rsvd", ProtoField.bytes("mrc.cnp.rsvd", "Reserved"))
add("destqp", ProtoField.uint24("mrc.destqp", "Destination QP", base.HEX))
add("flags", ProtoField.uint8("mrc.flags", "Flags", base.HEX))
add("f_ack", ProtoField.bool("mrc.flags.ackreq", "A (ack request)", 8, nil, 0x80))
add("f_rtx", ProtoField.bool("mrc.flags.rtx", "RTX (retransmission)", 8, nil, 0x20))
add("f_ts", ProtoField.bool("mrc.flags.ts", "TS (TSETH present)", 8, nil, 0x10))
add("psn", ProtoField.uint24("mrc.psn", "Packet Sequence Number", base.DEC))
add("ev", ProtoField.uint32("mrc.ev", "Entropy Value (path, from UDP sport/flow label)",
	base.HEX))
-- METH, TSETH, RETH, ImmDt
add("rqmsn", ProtoField.uint16("mrc.meth.rqmsn", "Request MSN", base.DEC))
add("msn", ProtoField.uint16("mrc.meth.msn", "Message Sequence Number", base.DEC))
add("ts_tx", ProtoField.uint16("mrc.tseth.tx_ts", "Tx Timestamp", base.DEC))
add("ts_tsr", ProtoField.bool("mrc.tseth.tsr", "TSR", 16, nil, 0x8000))
add("ts_ftype", ProtoField.uint16("mrc.tseth.ftype", "Format Type", base.DEC, nil, 0x000F))
add("va", ProtoField.uint64("mrc.reth.va", "Virtual Address", base.HEX))
add("rkey", ProtoField.uint32("mrc.reth.rkey", "Remote Key", base.HEX))
add("dmalen", ProtoField.uint32("mrc.reth.dmalen", "DMA Length", base.DEC))
add("imm", ProtoField.uint32("mrc.immdt", "Immediate Data", base.HEX))
add("payload", ProtoField.bytes("mrc.payload", "Payload"))
add("payload_len", ProtoField.uint32("mrc.payload_len", "Payload Length", base.DEC))
add("pad", ProtoField.bytes("mrc.pad", "Pad"))
add("icrc", ProtoField.uint32("mrc.icrc", "ICRC (little-endian)", base.HEX))
add("icrc_calc", ProtoField.uint32("mrc.icrc.calculated", "Calculated ICRC", base.HEX))
add("icrc_status", ProtoField.string("mrc.icrc.status", "ICRC Status"))
add("trimmed", ProtoField.uint32("mrc.trimmed", "Trimmed: payload bytes as sent", base.DEC))
-- AETH
add("aeth_syn", ProtoField.uint8("mrc.aeth.syndrome", "Syndrome", base.HEX))
add("aeth_msn", ProtoField.uint24("mrc.aeth.msn", "MSN", base.DEC))
-- SETH
add("s_flags", ProtoField.uint16("mrc.seth.flags", "Flags", base.HEX))
add("s_m", ProtoField.uint16("mrc.seth.m", "m (EV feedback)", base.DEC, sack_m_names, 0x0060))
add("s_pr", ProtoField.bool("mrc.seth.pr", "pr (answers a probe)", 16, nil, 0x0002))
add("s_apo", ProtoField.int16("mrc.seth.ack_psn_offset", "ACK PSN Offset", base.DEC))
add("s_acked", ProtoField.uint24("mrc.seth.ack_psn", "Acked PSN (cack + offset)", base.DEC))
add("s_ev", ProtoField.uint32("mrc.seth.ev", "Entropy (echoed EV)", base.HEX))
add("s_spdcid", ProtoField.uint16("mrc.seth.spdcid", "SPDCID", base.DEC))
add("s_dpdcid", ProtoField.uint16("mrc.seth.dpdcid", "DPDCID", base.DEC))
add("s_rsvd", ProtoField.uint8("mrc.seth.rsvd", "Reserved", base.HEX))
add("s_cack", ProtoField.uint24("mrc.seth.cack_psn", "Cumulative ACK PSN", base.DEC))
add("s_cctype", ProtoField.uint8("mrc.seth.cc_type", "CC Type", base.DEC, nil, 0xF0))
add("s_ccflags", ProtoField.uint8("mrc.seth.cc_flags", "CC Flags", base.HEX, nil, 0x0F))
add("s_mpr", ProtoField.uint8("mrc.seth.mpr", "MPR (x128 PSNs)", base.DEC))
add("s_soff", ProtoField.int16("mrc.seth.sack_offset", "SACK Offset", base.DEC))
add("s_base", ProtoField.uint24("mrc.seth.sack_base", "SACK Base PSN (cack + offset)",
	base.DEC))
add("s_bitmap", ProtoField.uint64("mrc.seth.bitmap", "SACK Bitmap", base.HEX))
add("s_nbits", ProtoField.uint8("mrc.seth.bitmap_count", "PSNs marked", base.DEC))
add("s_psn", ProtoField.uint24("mrc.seth.sacked_psn", "SACKed PSN", base.DEC))
-- CC_STATE
add("c_echo", ProtoField.uint16("mrc.cc.tx_ts_echo", "Tx Timestamp Echo", base.DEC))
add("c_ooo", ProtoField.uint16("mrc.cc.ooo_count", "Out-of-order Count", base.DEC, nil, 0x7FFF))
add("c_restore", ProtoField.bool("mrc.cc.restore_cwnd", "Restore cwnd", 8, nil, 0x80))
add("c_pen", ProtoField.uint8("mrc.cc.rcv_cwnd_pen", "Receiver cwnd Penalty", base.DEC, nil,
	0x7F))
add("c_rcvd", ProtoField.uint24("mrc.cc.rcvd_bytes", "Received Bytes (x256, wrapping)",
	base.DEC))
-- NETH
add("n_rsvd", ProtoField.uint16("mrc.neth.rsvd", "Reserved", base.HEX))
add("n_reason", ProtoField.uint8("mrc.neth.reason", "NACK Reason", base.HEX, nack_reasons))
add("n_vendor", ProtoField.uint8("mrc.neth.vendor", "Vendor", base.HEX))
add("n_ev", ProtoField.uint32("mrc.neth.ev", "Entropy (echoed EV)", base.HEX))
add("n_spdcid", ProtoField.uint16("mrc.neth.spdcid", "SPDCID", base.DEC))
add("n_dpdcid", ProtoField.uint16("mrc.neth.dpdcid", "DPDCID", base.DEC))
add("n_psn", ProtoField.uint24("mrc.neth.nack_psn", "NACK PSN", base.DEC))
add("n_cctype", ProtoField.uint8("mrc.neth.cc_type", "CC Type", base.DEC, nil, 0xF0))
add("n_ccflags", ProtoField.uint8("mrc.neth.cc_flags", "CC Flags", base.HEX, nil, 0x0F))
add("n_echo", ProtoField.uint16("mrc.neth.tx_ts_echo", "Tx Timestamp Echo", base.DEC))
-- PETH
add("p_vendor", ProtoField.uint8("mrc.peth.vendor", "Vendor", base.HEX))
add("p_id", ProtoField.uint16("mrc.peth.probe_id", "Probe ID", base.DEC))
add("p_spdcid", ProtoField.uint16("mrc.peth.spdcid", "SPDCID", base.DEC))
add("p_dpdcid", ProtoField.uint16("mrc.peth.dpdcid", "DPDCID", base.DEC))
add("p_ts", ProtoField.uint16("mrc.peth.tx_ts", "Tx Timestamp", base.DEC))
add("p_tsr", ProtoField.bool("mrc.peth.tsr", "TSR", 16, nil, 0x8000))
add("p_ftype", ProtoField.uint16("mrc.peth.ftype", "Format Type", base.DEC, nil, 0x000F))
-- ERTH / EETH
add("e_op", ProtoField.uint8("mrc.ep.op", "Operation", base.DEC, ep_ops, 0x03))
add("e_rop", ProtoField.uint8("mrc.ep.rsp_op", "Operation", base.DEC, ep_ops, 0x30))
add("e_vendor", ProtoField.uint8("mrc.ep.vendor", "Vendor", base.HEX))
add("e_ports", ProtoField.uint32("mrc.ep.port_status", "Ports Up (bit N = port N, 1-based)",
	base.HEX))
add("e_ts", ProtoField.uint16("mrc.ep.tx_ts", "Tx Timestamp", base.DEC))
add("e_tsr", ProtoField.bool("mrc.ep.tsr", "TSR", 16, nil, 0x8000))
add("e_ftype", ProtoField.uint16("mrc.ep.ftype", "Format Type", base.DEC, nil, 0x000F))
add("e_echo", ProtoField.uint16("mrc.ep.tx_ts_echo", "Tx Timestamp Echo", base.DEC))
add("e_rsvd", ProtoField.bytes("mrc.ep.rsvd", "Reserved"))

local field_list = {}
for _, f in pairs(F) do field_list[#field_list + 1] = f end
mrc.fields = field_list

local ex_trunc = ProtoExpert.new("mrc.truncated", "MRC header truncated",
	expert.group.MALFORMED, expert.severity.ERROR)
local ex_unknown = ProtoExpert.new("mrc.unknown_opcode", "Unknown MRC opcode",
	expert.group.UNDECODED, expert.severity.WARN)
local ex_fatal = ProtoExpert.new("mrc.nack_fatal", "Fatal NACK (UNEXP_EVENT)",
	expert.group.SEQUENCE, expert.severity.WARN)
local f_udp_len = Field.new("udp.length")
local ex_icrc = ProtoExpert.new("mrc.icrc.bad", "Bad ICRC", expert.group.CHECKSUM,
	expert.severity.ERROR)
mrc.experts = { ex_trunc, ex_unknown, ex_fatal, ex_icrc }

-- Preference: how the packet's own EV is recovered (docs/wire-format.md "Other EV format modes").
mrc.prefs.ev_format = Pref.enum("EV format", 1,
	"srv6/stev: EV = UDP sport << 16 | flow label[15:0]; udp: EV = UDP sport",
	{ { 1, "srv6", 1 }, { 2, "stev", 2 }, { 3, "udp", 3 } }, false)

local f_udp_sport = Field.new("udp.srcport")
local f_ip6_flow = Field.new("ipv6.flow")
local f_ip6 = Field.new("ipv6")
local f_udp = Field.new("udp")

local function last(field)
	local all = { field() }
	return all[#all]
end

-- CRC-32, IEEE 802.3 polynomial, reflected (table for the byte-at-a-time update).
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) == 1 then c = bxor(rshift(c, 1), 0xEDB88320) else c = rshift(c, 1) end
	end
	crc_table[i] = c
end

local function crc_bytes(crc, ba, from, to)
	for i = from, to do
		crc = bxor(crc_table[band(bxor(crc, ba:get_index(i)), 0xFF)], rshift(crc, 8))
	end
	return crc
end

-- RoCEv2 ICRC (IBTA Annex A17; mrc_wire_icrc in mrc/engine/wire.h) of the packet whose MRC part
-- (BTH up to the ICRC, exclusive) is @mrc_ba: CRC-32 (init and final xor all ones) over
-- 8 bytes of 0xFF, the innermost IPv6 header with traffic class, flow label and hop limit
-- set to ones, the UDP header with the checksum set to ones, then BTH with byte 4 set to
-- ones and the rest. Returns nil when the IPv6/UDP headers are not at hand.
local function icrc_of(mrc_ba)
	local ip, udp = last(f_ip6), last(f_udp)
	if not ip or not udp or ip.range:len() < 40 or udp.range:len() < 8 then return nil end
	local h = ip.range:range(0, 40):bytes()
	local u = udp.range:range(0, 8):bytes()
	h:set_index(0, bor(band(h:get_index(0), 0xF0), 0x0F))
	h:set_index(1, 0xFF)
	h:set_index(2, 0xFF)
	h:set_index(3, 0xFF)
	h:set_index(7, 0xFF)
	u:set_index(6, 0xFF)
	u:set_index(7, 0xFF)
	local crc = 0xFFFFFFFF
	for _ = 1, 8 do crc = bxor(crc_table[band(bxor(crc, 0xFF), 0xFF)], rshift(crc, 8)) end
	crc = crc_bytes(crc, h, 0, 39)
	crc = crc_bytes(crc, u, 0, 7)
	local b4 = mrc_ba:get_index(4)
	mrc_ba:set_index(4, 0xFF)
	crc = crc_bytes(crc, mrc_ba, 0, mrc_ba:len() - 1)
	mrc_ba:set_index(4, b4)
	return bxor(crc, 0xFFFFFFFF)
end

local function psn_add(a, n)
	return (a + n) % 0x1000000
end

-- Returns false when @n bytes from @off are not all there. A packet too short for them
-- (by its reported, original length) is flagged malformed; one whose bytes were merely cut
-- by the capture's snaplen gets a "[truncated capture]" item instead, with no error.
local function need(tvb, tree, off, n, what)
	local rlen, clen = tvb:reported_len(), tvb:len()
	if rlen < off + n then
		tree:add_proto_expert_info(ex_trunc,
			string.format("%s: needs %d bytes at offset %d, "
				.. "packet has %d", what, n, off, rlen))
		return false
	end
	if clen < off + n then
		local label = string.format("%s [truncated capture]", what)
		if clen > off then
			tree:add(mrc, tvb(off, clen - off), label)
		else
			tree:add(mrc, label)
		end
		return false
	end
	return true
end

local function dissect_meth(tvb, tree, off)
	if not need(tvb, tree, off, LEN.METH, "METH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.METH), "METH (message sequence)")
	t:add(F.rqmsn, tvb(off, 2))
	t:add(F.msn, tvb(off + 2, 2))
	return off + LEN.METH
end

local function dissect_tseth(tvb, tree, off)
	if not need(tvb, tree, off, LEN.TSETH, "TSETH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.TSETH), "TSETH (timestamp)")
	t:add(F.ts_tx, tvb(off, 2))
	t:add(F.ts_tsr, tvb(off + 2, 2))
	t:add(F.ts_ftype, tvb(off + 2, 2))
	return off + LEN.TSETH
end

local function dissect_reth(tvb, tree, off)
	if not need(tvb, tree, off, LEN.RETH, "RETH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.RETH), "RETH (RDMA extended transport)")
	t:add(F.va, tvb(off, 8))
	t:add(F.rkey, tvb(off + 8, 4))
	t:add(F.dmalen, tvb(off + 12, 4))
	return off + LEN.RETH
end

local function dissect_seth(tvb, tree, off, info)
	if not need(tvb, tree, off, LEN.SETH, "SETH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.SETH), "SETH (selective ACK)")
	local fl = t:add(F.s_flags, tvb(off, 2))
	fl:add(F.s_m, tvb(off, 2))
	fl:add(F.s_pr, tvb(off, 2))
	local cack = tvb(off + 13, 3):uint()
	local apo = tvb(off + 2, 2):int()
	local soff = tvb(off + 18, 2):int()
	t:add(F.s_apo, tvb(off + 2, 2))
	t:add(F.s_acked, tvb(off + 2, 2), psn_add(cack, apo)):set_generated()
	t:add(F.s_ev, tvb(off + 4, 4))
	t:add(F.s_spdcid, tvb(off + 8, 2))
	t:add(F.s_dpdcid, tvb(off + 10, 2))
	t:add(F.s_rsvd, tvb(off + 12, 1))
	t:add(F.s_cack, tvb(off + 13, 3))
	t:add(F.s_cctype, tvb(off + 16, 1))
	t:add(F.s_ccflags, tvb(off + 16, 1))
	t:add(F.s_mpr, tvb(off + 17, 1))
	t:add(F.s_soff, tvb(off + 18, 2))
	local sbase = psn_add(cack, soff)
	t:add(F.s_base, tvb(off + 18, 2), sbase):set_generated()
	-- Bit i of the 64-bit big-endian bitmap (bit 0 = least significant) => PSN base + i.
	local hi, lo = tvb(off + 20, 4):uint(), tvb(off + 24, 4):uint()
	local bm = t:add(F.s_bitmap, tvb(off + 20, 8))
	local marked, runs = 0, {}
	local run_start = nil
	for i = 0, 64 do
		local set = false
		if i < 32 then
			set = band(rshift(lo, i), 1) == 1
		elseif i < 64 then
			set = band(rshift(hi, i - 32), 1) == 1
		end
		if set then
			marked = marked + 1
			bm:add(F.s_psn, tvb(off + 20, 8), psn_add(sbase, i)):set_generated()
			if not run_start then run_start = i end
		elseif run_start then
			local a, b = psn_add(sbase, run_start), psn_add(sbase, i - 1)
			runs[#runs + 1] = a == b and tostring(a) or (a .. "-" .. b)
			run_start = nil
		end
	end
	bm:append_text(" (PSNs " .. (marked > 0 and table.concat(runs, ",") or "none") .. ")")
	t:add(F.s_nbits, tvb(off + 20, 8), marked):set_generated()
	info[#info + 1] = string.format("cack=%d echo_ev=0x%08x sack=[%s]", cack,
		tvb(off + 4, 4):uint(), table.concat(runs, ","))
	off = off + LEN.SETH
	if not need(tvb, tree, off, LEN.CC_STATE, "CC_STATE") then return nil end
	local c = tree:add(mrc, tvb(off, LEN.CC_STATE), "CC_STATE (congestion feedback)")
	c:add(F.c_echo, tvb(off, 2))
	c:add(F.c_ooo, tvb(off + 2, 2))
	c:add(F.c_restore, tvb(off + 4, 1))
	c:add(F.c_pen, tvb(off + 4, 1))
	c:add(F.c_rcvd, tvb(off + 5, 3))
	return off + LEN.CC_STATE
end

local function dissect_neth(tvb, tree, off, info)
	if not need(tvb, tree, off, LEN.NETH, "NETH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.NETH), "NETH (negative ACK)")
	local reason = tvb(off + 2, 1):uint()
	t:add(F.n_rsvd, tvb(off, 2))
	local r = t:add(F.n_reason, tvb(off + 2, 1))
	if reason == 0x19 then r:add_proto_expert_info(ex_fatal) end
	t:add(F.n_vendor, tvb(off + 3, 1))
	t:add(F.n_ev, tvb(off + 4, 4))
	t:add(F.n_spdcid, tvb(off + 8, 2))
	t:add(F.n_dpdcid, tvb(off + 10, 2))
	t:add(F.n_psn, tvb(off + 13, 3))
	t:add(F.n_cctype, tvb(off + 16, 1))
	t:add(F.n_ccflags, tvb(off + 16, 1))
	t:add(F.n_echo, tvb(off + 18, 2))
	info[#info + 1] = string.format("%s nack_psn=%d echo_ev=0x%08x",
		nack_reasons[reason] or string.format("reason 0x%02x", reason),
		tvb(off + 13, 3):uint(), tvb(off + 4, 4):uint())
	return off + LEN.NETH
end

local function dissect_peth(tvb, tree, off, info)
	if not need(tvb, tree, off, LEN.PETH, "PETH") then return nil end
	local t = tree:add(mrc, tvb(off, LEN.PETH), "PETH (path probe)")
	t:add(F.p_vendor, tvb(off + 3, 1))
	t:add(F.p_id, tvb(off + 4, 2))
	t:add(F.p_spdcid, tvb(off + 8, 2))
	t:add(F.p_dpdcid, tvb(off + 10, 2))
	t:add(F.p_ts, tvb(off + 12, 2))
	t:add(F.p_tsr, tvb(off + 14, 2))
	t:add(F.p_ftype, tvb(off + 14, 2))
	info[#info + 1] = string.format("probe_id=%d", tvb(off + 4, 2):uint())
	return off + LEN.PETH
end

-- ERTH (16 B) / EETH (36 B), the MRC 1.0 header tables, per
-- docs/wire-format.md "Endpoint operations":
-- ERTH type/nh(8) rsvd(6) op(2) rsvd(8) vendor(8) | port_status(32) | rsvd(32) |
--      tx_ts(16) TSR(1) rsvd(11) ftype(4)
-- EETH type/nh(8) rsvd(2) op(2) rsvd(4) rsvd(16) | rsvd(192) | tx_ts_echo(16) rsvd(16) |
--      rsvd(32)
-- The request id is BTH PSN[15:0].
local function dissect_ep(tvb, tree, off, info, resp)
	local n = resp and LEN.EETH or LEN.ERTH
	if not need(tvb, tree, off, n, resp and "EETH" or "ERTH") then return nil end
	local t = tree:add(mrc, tvb(off, n), resp and "EETH (endpoint response)"
		or "ERTH (endpoint request)")
	local op
	if resp then
		t:add(F.e_rop, tvb(off + 1, 1))
		t:add(F.e_rsvd, tvb(off + 4, 24))
		t:add(F.e_echo, tvb(off + 28, 2))
		op = math.floor(tvb(off + 1, 1):uint() / 16) % 4
	else
		t:add(F.e_op, tvb(off + 1, 1))
		t:add(F.e_vendor, tvb(off + 3, 1))
		t:add(F.e_ports, tvb(off + 4, 4))
		t:add(F.e_ts, tvb(off + 12, 2))
		t:add(F.e_tsr, tvb(off + 14, 2))
		t:add(F.e_ftype, tvb(off + 14, 2))
		op = tvb(off + 1, 1):uint() % 4
	end
	info[#info + 1] = string.format("%s req_id=%d", ep_ops[op] or "op?", tvb(10, 2):uint())
	return off + n
end

local builtin = DissectorTable.get("udp.port"):get_dissector(4791)

local function is_write(op)
	return op >= OP.WRITE_FIRST and op <= OP.WRITE_ONLY_IMM
end

-- The opcodes decoded here: MRC's range and the CNP.
local function is_mrc(op)
	return (op >= 0xC6 and op <= 0xDE) or op == OP.CNP
end

function mrc.dissector(tvb, pinfo, tree)
	if tvb:len() < 1 then return 0 end
	local op = tvb(0, 1):uint()
	if not is_mrc(op) then
		if builtin then return builtin:call(tvb, pinfo, tree) end
		return 0
	end
	pinfo.cols.protocol = "MRC"
	local root = tree:add(mrc, tvb(), "MRC")
	local info = { op_names[op] or string.format("opcode 0x%02x", op) }
	if not need(tvb, root, 0, LEN.BTH, "BTH") then
		pinfo.cols.info = table.concat(info, " ")
		return tvb:len()
	end
	local bth = root:add(mrc, tvb(0, LEN.BTH), "BTH (base transport header)")
	bth:add(F.opcode, tvb(0, 1))
	bth:add(F.se, tvb(1, 1))
	bth:add(F.mig, tvb(1, 1))
	bth:add(F.padcnt, tvb(1, 1))
	bth:add(F.tver, tvb(1, 1))
	bth:add(F.pkey, tvb(2, 2))
	local rsvd = bth:add(F.bth_rsvd, tvb(4, 1))
	rsvd:add(F.fecn, tvb(4, 1))
	rsvd:add(F.becn, tvb(4, 1))
	bth:add(F.destqp, tvb(5, 3))
	local fl = bth:add(F.flags, tvb(8, 1))
	fl:add(F.f_ack, tvb(8, 1))
	fl:add(F.f_rtx, tvb(8, 1))
	fl:add(F.f_ts, tvb(8, 1))
	bth:add(F.psn, tvb(9, 3))
	local flags = tvb(8, 1):uint()
	local psn = tvb(9, 3):uint()
	info[#info + 1] = string.format("qp=0x%06x psn=%d", tvb(5, 3):uint(), psn)
	if band(flags, 0x20) ~= 0 then info[#info + 1] = "RTX" end

	local sport, flow = last(f_udp_sport), last(f_ip6_flow)
	if sport then
		local ev = sport.value
		if mrc.prefs.ev_format ~= 3 then
			ev = sport.value * 65536 + (flow and flow.value % 65536 or 0)
		end
		root:add(F.ev, ev):set_generated()
		info[#info + 1] = string.format("ev=0x%08x", ev)
	end

	local off = LEN.BTH
	if is_write(op) then
		off = dissect_meth(tvb, root, off)
		if off and band(flags, 0x10) ~= 0 then off = dissect_tseth(tvb, root, off) end
		if off then off = dissect_reth(tvb, root, off) end
		if off and (op == OP.WRITE_LAST_IMM or op == OP.WRITE_ONLY_IMM) then
			if need(tvb, root, off, LEN.IMM, "ImmDt") then
				root:add(F.imm, tvb(off, LEN.IMM))
				off = off + LEN.IMM
			else
				off = nil
			end
		end
	elseif op == OP.ACK then
		if need(tvb, root, off, LEN.AETH, "AETH") then
			local t = root:add(mrc, tvb(off, LEN.AETH), "AETH (ACK extended transport)")
			t:add(F.aeth_syn, tvb(off, 1))
			t:add(F.aeth_msn, tvb(off + 1, 3))
			off = off + LEN.AETH
		else
			off = nil
		end
	elseif op == OP.SACK then
		off = dissect_seth(tvb, root, off, info)
	elseif op == OP.NACK then
		off = dissect_neth(tvb, root, off, info)
	elseif op == OP.PROBE then
		off = dissect_peth(tvb, root, off, info)
	elseif op == OP.EP_REQUEST or op == OP.EP_RESPONSE then
		off = dissect_ep(tvb, root, off, info, op == OP.EP_RESPONSE)
	elseif op == OP.CNP then
		-- RoCEv2 CNP (IBTA Annex A17): BTH (BECN set, PSN 0, DestQP the requester's QP),
		-- 16 reserved bytes, ICRC
		if need(tvb, root, off, LEN.CNP, "CNP") then
			local t = root:add(mrc, tvb(off, LEN.CNP),
				"CNP (congestion notification, 16 reserved bytes)")
			t:add(F.cnp_rsvd, tvb(off, LEN.CNP))
			if band(tvb(4, 1):uint(), 0x40) ~= 0 then info[#info + 1] = "BECN" end
			off = off + LEN.CNP
		else
			off = nil
		end
	else
		root:add_proto_expert_info(ex_unknown, string.format("opcode 0x%02x", op))
		off = nil
	end
	pinfo.cols.info = table.concat(info, " ")
	if not off then
		if tvb:len() < tvb:reported_len() then
			root:add(F.icrc_status, "unchecked: truncated capture"):set_generated()
		end
		return tvb:len()
	end

	-- What follows the headers: payload (data packets) and the 4-byte ICRC. Lengths come
	-- from the reported (original) packet length: a snaplen-limited capture keeps only the
	-- first bytes, and then the ICRC is not there to be checked.
	local rlen, clen = tvb:reported_len(), tvb:len()
	-- A trimmed packet (C11, docs/wire-format.md "Trimming"): a switch cut it after the
	-- headers, rewriting the first IPv6 header's payload length and DSCP; the UDP length still
	-- says what was sent (Wireshark flags it), so UDP carries more than the packet holds. The
	-- payload and ICRC after the cut cannot be checked.
	local ul = f_udp_len()
	if ul and ul.value - 8 > rlen then
		local pad = band(rshift(tvb(1, 1):uint(), 4), 3)
		local sent = ul.value - 8 - off - LEN.ICRC - pad
		root:add(F.trimmed, sent):set_generated()
		if clen > off then
			root:add(F.payload, tvb(off, clen - off)):append_text(" [trimmed]")
		end
		root:add(F.icrc_status, "unchecked: trimmed"):set_generated()
		info[#info + 1] = "[trimmed]"
		pinfo.cols.info = table.concat(info, " ")
		return clen
	end
	local rest = rlen - off
	if rest < LEN.ICRC then
		root:add_proto_expert_info(ex_trunc, "ICRC missing")
		return clen
	end
	local pad = band(rshift(tvb(1, 1):uint(), 4), 3)
	if rest < LEN.ICRC + pad then pad = 0 end
	local plen = rest - LEN.ICRC - pad
	root:add(F.payload_len, plen):set_generated()
	-- Adds @field over [@from, @from + @n), clipped to the captured bytes.
	local function add_clipped(field, from, n)
		if n <= 0 then return end
		if from + n <= clen then
			root:add(field, tvb(from, n))
		elseif from < clen then
			root:add(field, tvb(from, clen - from)):append_text(" [truncated capture]")
		end
	end
	add_clipped(F.payload, off, plen)
	add_clipped(F.pad, off + plen, pad)
	local icrc_off = off + plen + pad
	if clen < rlen then
		root:add(F.icrc_status, "unchecked: truncated capture"):set_generated()
		return clen
	end
	local icrc_r = tvb(icrc_off, LEN.ICRC)
	local it = root:add_le(F.icrc, icrc_r)
	local ok, calc = pcall(icrc_of, tvb(0, icrc_off):bytes())
	if ok and calc then
		local good = calc == icrc_r:le_uint()
		it:add(F.icrc_calc, icrc_r, calc):set_generated()
		it:add(F.icrc_status, icrc_r, good and "Good" or "Bad"):set_generated()
		if not good then it:add_proto_expert_info(ex_icrc) end
	end
	return clen
end

DissectorTable.get("udp.port"):add(4791, mrc)

-- UDP hands a packet to the dissector of its lower port first, and an MRC packet's source
-- port is the EV's upper half: EVs of spine 7 or 13 would decode as ECHO or DAYTIME. As a
-- heuristic dissector MRC claims UDP packets to port 4791 with an MRC opcode before any
-- port-based guess when "Try heuristic sub-dissectors first" (udp.try_heuristic_first) is
-- on; the port registration above still serves every other case.
local function heur(tvb, pinfo, tree)
	if pinfo.dst_port ~= 4791 or tvb:len() < 1 then return false end
	local op = tvb(0, 1):uint()
	if not is_mrc(op) then return false end
	mrc.dissector(tvb, pinfo, tree)
	return true
end
mrc:register_heuristic("udp", heur)
