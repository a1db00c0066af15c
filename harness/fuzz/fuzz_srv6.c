// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_srv6: libFuzzer entry for the SRv6 endpoint on packet bytes (mrc/srv6, RFC 8754
 * §4.3.1, RFC 9800 §4.1.1): mrc_srv6_end_pkt with block fc00:0::/32 and own uSID 0x0001
 * (C01's first segment), repeated while it forwards, which must end; the SRH parser on the
 * bytes after a 40-byte IPv6 header; the node-name parser on the input as a string.
 */
#include "mrc/engine/srv6.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 0xfc000000u
#define OWN 0x0001

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mrc_srv6_node node;
	struct mrc_srh srh;
	uint8_t *pkt;
	char *s;
	int r, steps = 0;
	uint16_t own;

	pkt = malloc(size ? size : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, data, size);
	/*
	 * Walk the packet hop by hop, each hop owning the uSID the DA carries. Each FORWARD
	 * either shifts the DA (at most 5 times per container) or decrements segments_left
	 * (at most 255 times), so the walk ends within 6 * 256 steps. (A uSID shift does not
	 * read the SRH, so a bad SRH may first show at a later hop: no invariant there.)
	 */
	own = OWN;
	do {
		r = mrc_srv6_end_pkt(pkt, size, BLOCK, own);
		if (++steps > 6 * 256)
			abort();
		if (size >= 40)
			own = (uint16_t)(pkt[28] << 8 | pkt[29]);
	} while (r == MRC_SRV6_END_FORWARD);
	memcpy(pkt, data, size);
	r = mrc_srv6_srh_end(pkt, size);
	(void)r;
	if (size > 40 && mrc_wire_srh_decode(data + 40, size - 40, &srh) > 0) {
		struct mrc_ip6 seg;

		if (srh.len > size - 40 || srh.segments_left > srh.last_entry + 1)
			abort();
		for (unsigned i = 0; i <= srh.last_entry; i++)
			mrc_wire_srh_segment(&srh, i, &seg);
	}
	free(pkt);
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	mrc_srv6_node_parse(s, &node);
	free(s);
	return 0;
}
