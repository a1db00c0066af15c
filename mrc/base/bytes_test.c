/* SPDX-License-Identifier: BSD-2-Clause */
/* bytes: selftest of the serial-number arithmetic (docs/known-answers.md C10, RFC 1982). */
#include "mrc/base/bytes.h"
#include "mrc/base/st.h"

#include <string.h>

MRC_SELFTEST(bytes)
{
	static const struct {
		uint64_t a, b;
		bool lt;
	} lt32[] = {
		/* C10: w = 32 */
		{ 0xFFFFFFF0u, 0x10, true },
		{ 0x10, 0xFFFFFFF0u, false },
		{ 0x7FFFFFFFu, 0x80000000u, true },
		{ 0, 0xDF2FFF85u, false },
	};
	uint8_t b[8];

	mrc_st_case(st, "C10 serial_lt at 32 bits");
	for (size_t i = 0; i < sizeof(lt32) / sizeof(lt32[0]); i++)
		ST_EQ(st, serial_lt(lt32[i].a, lt32[i].b, 32), lt32[i].lt);

	mrc_st_case(st, "C10 gap offsets from the cumulative point across the 32-bit wrap");
	ST_EQ_I(st, serial_diff(0x00000001, 0xFFFFFFFEu, 32), 3);
	ST_EQ_I(st, serial_diff(0x00000002, 0xFFFFFFFEu, 32), 4);

	mrc_st_case(st, "C10 24-bit PSN wrap");
	ST_EQ_I(st, psn_diff(0x000001, 0xFFFFFE), 3);
	ST_EQ_I(st, psn_diff(0x000002, 0xFFFFFE), 4);
	ST_TRUE(st, psn_lt(0xFFFFFF, 0x000000));
	ST_TRUE(st, !psn_lt(0x000000, 0xFFFFFF));
	ST_EQ(st, psn_add(0xFFFFFF, 1), 0);
	ST_EQ(st, psn_add(0x000000, -1), 0xFFFFFF);
	ST_EQ(st, psn_add(0xFFFF00, 0x200), 0x000100);

	mrc_st_case(st, "big-endian put/get");
	put_be32(b, 0x01020304);
	put_be16(b + 4, 0xA1B2);
	put_be16(b + 6, 0xC3D4);
	ST_EQ_MEM(st, b, "\x01\x02\x03\x04\xA1\xB2\xC3\xD4", 8);
	ST_EQ(st, get_be64(b), 0x01020304A1B2C3D4ull);
	ST_EQ(st, get_be24(b + 1), 0x020304);
}
