/* SPDX-License-Identifier: BSD-2-Clause */
/* pcapw_test: unit tests of pcap/pcapw.c (`mrcgen-test pcapw`). */
#include "pcap/pcapw.c"
#include "mrc/base/st.h"

/* ---- selftest ------------------------------------------------------------------------ */

/* C01's 112-byte IPv6 + SRH + UDP packet (docs/known-answers.md C01), the packet of case C04. */
static const char st_c01_pkt[] =
	"6000000000482b40 20010db8000a0000 0000000000000001"
	"fc00000000010000 0000000000000001"
	"1106040202000000"
	"20010db8000b0000 0000000000000002"
	"fc00000000020000 0000000000000001"
	"fc00000000010000 0000000000000001"
	"c00012b70010c57c 0001020304050607";

/*
 * Expected bytes are written little-endian as in the cases; libpcap writes host order, so
 * on a big-endian host each field (widths in @fields) is reversed before comparing.
 */
static void st_to_host(uint8_t *b, const int *fields)
{
	const union {
		uint16_t u;
		uint8_t c[2];
	} probe = { .u = 1 };

	if (probe.c[0] == 1)
		return;
	for (; *fields; b += *fields, fields++) {
		for (int i = 0; i < *fields / 2; i++) {
			uint8_t t = b[i];

			b[i] = b[*fields - 1 - i];
			b[*fields - 1 - i] = t;
		}
	}
}

static const int st_fhdr_fields[] = { 4, 2, 2, 4, 4, 4, 4, 0 };
static const int st_rhdr_fields[] = { 4, 4, 4, 4, 0 };

/* Reads the whole file @path into @out (cap bytes); returns its size or -1. */
static long st_slurp(const char *path, uint8_t *out, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(out, 1, cap, f);
	fclose(f);
	return (long)n;
}

static long st_file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static bool st_tmpname(char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, cap, "%s/mrcgen-pcapw-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A file size limit stands in for a full disk: with RLIMIT_FSIZE at 700 bytes a write past
 * it writes what fits and fails with EFBIG (SIGXFSZ ignored meanwhile). Records of 100
 * bytes take 16 + 100 = 116; flushing every 4 records the file holds 24 + 4 x 116 = 488
 * bytes after the 4th; the 8th's flush of 4 x 116 = 464 more stops at 700, mid-record
 * (700 - 488 = 212 = 116 + 96). The file must be cut back to 488 and stay so.
 */
static void st_write_error(struct mrc_st *st, const char *path, const uint8_t *pkt)
{
	char errbuf[PCAPW_ERRBUF_SIZE], want[600];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_sa;
	struct rlimit old_rl, rl;
	struct pcapw *w = NULL;
	int rc[10];

	if (getrlimit(RLIMIT_FSIZE, &old_rl) || old_rl.rlim_cur < 4096) {
		ST_TRUE(st, false);
		return;
	}
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	if (!w)
		return;
	pcapw_set_flush_every(w, 4);
	sigaction(SIGXFSZ, &ign, &old_sa);
	rl = old_rl;
	rl.rlim_cur = 700;
	setrlimit(RLIMIT_FSIZE, &rl);
	for (int i = 0; i < 10; i++)
		rc[i] = pcapw_write(w, 1000u * (unsigned)i, pkt, 100);
	setrlimit(RLIMIT_FSIZE, &old_rl);
	sigaction(SIGXFSZ, &old_sa, NULL);
	for (int i = 0; i < 7; i++)
		ST_EQ_I(st, rc[i], 0);
	ST_EQ_I(st, rc[7], -EFBIG);
	ST_EQ_I(st, rc[8], -EFBIG); /* sticky: nothing more is written */
	ST_EQ_I(st, rc[9], -EFBIG);
	ST_EQ_I(st, st_file_size(path), 24 + 4 * 116);
	ST_EQ(st, pcapw_count(w), 4);
	snprintf(want, sizeof(want), "pcap write: %s: %s", path, strerror(EFBIG));
	ST_EQ_STR(st, pcapw_error(w), want);
	ST_EQ_I(st, pcapw_flush(w), -EFBIG);
	ST_EQ_I(st, pcapw_close(w), -EFBIG);
	ST_EQ_I(st, st_file_size(path), 24 + 4 * 116);
}

MRC_SELFTEST(pcapw)
{
	static uint8_t file[2 * 1024 * 1024];
	uint8_t pkt[1504], want[64];
	char path[256], errbuf[PCAPW_ERRBUF_SIZE];
	struct pcapw *w = NULL;
	long n;
	int len;

	if (!st_tmpname(path, sizeof(path))) {
		mrc_st_case(st, "setup: temporary file");
		ST_TRUE(st, false);
		return;
	}
	len = mrc_st_hex(st_c01_pkt, pkt, sizeof(pkt));

	mrc_st_case(st, "C04 nanosecond file: global header, record header, data");
	ST_EQ_I(st, len, 112);
	ST_EQ_I(st, pcapw_open(path, 65535, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		ST_EQ_I(st, pcapw_write(w, 1700000000123456789ull, pkt, 112), 0);
		ST_EQ_I(st, pcapw_close(w), 0);
	}
	n = st_slurp(path, file, sizeof(file));
	ST_EQ_I(st, n, 24 + 16 + 112);
	mrc_st_hex("4d 3c b2 a1 02 00 04 00 00 00 00 00 00 00 00 00 ff ff 00 00 65 00 00 00",
		want, sizeof(want));
	st_to_host(want, st_fhdr_fields);
	ST_EQ_MEM(st, file, want, 24);
	mrc_st_hex("00 f1 53 65 15 cd 5b 07 70 00 00 00 70 00 00 00", want, sizeof(want));
	st_to_host(want, st_rhdr_fields);
	ST_EQ_MEM(st, file + 24, want, 16);
	ST_EQ_MEM(st, file + 40, pkt, 112);

	mrc_st_case(st, "C04 microsecond file: magic d4 c3 b2 a1, fraction 123456 truncated");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 65535, PCAPW_TS_US, &w, errbuf), 0);
	if (w) {
		ST_EQ_I(st, pcapw_write(w, 1700000000123456789ull, pkt, 112), 0);
		ST_EQ_I(st, pcapw_close(w), 0);
	}
	n = st_slurp(path, file, sizeof(file));
	ST_EQ_I(st, n, 24 + 16 + 112);
	mrc_st_hex("d4 c3 b2 a1 02 00 04 00 00 00 00 00 00 00 00 00 ff ff 00 00 65 00 00 00",
		want, sizeof(want));
	st_to_host(want, st_fhdr_fields);
	ST_EQ_MEM(st, file, want, 24);
	/* 123456789 ns -> 123456 us = 0x0001e240 (rounding would give 123457 = ...41). */
	mrc_st_hex("00 f1 53 65 40 e2 01 00 70 00 00 00 70 00 00 00", want, sizeof(want));
	st_to_host(want, st_rhdr_fields);
	ST_EQ_MEM(st, file + 24, want, 16);

	mrc_st_case(st, "C05 snaplen 128, 1504-byte packet: 168-byte file, incl 128, orig 1504");
	for (int i = 0; i < 1504; i++)
		pkt[i] = (uint8_t)(i * 7 + 1);
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 128, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		ST_EQ_I(st, pcapw_write(w, 1700000000123456789ull, pkt, 1504), 0);
		ST_EQ_I(st, pcapw_close(w), 0);
	}
	n = st_slurp(path, file, sizeof(file));
	ST_EQ_I(st, n, 168);
	/* snaplen 128 = 0x80 at offset 16; incl 0x80, orig 1504 = 0x05e0 at 32 and 36. */
	mrc_st_hex("80 00 00 00", want, sizeof(want));
	st_to_host(want, (const int[]){ 4, 0 });
	ST_EQ_MEM(st, file + 16, want, 4);
	ST_EQ_MEM(st, file + 32, want, 4);
	mrc_st_hex("e0 05 00 00", want, sizeof(want));
	st_to_host(want, (const int[]){ 4, 0 });
	ST_EQ_MEM(st, file + 36, want, 4);
	ST_EQ_MEM(st, file + 40, pkt, 128);

	mrc_st_case(st, "C05 snaplen 0 is written as 262144, never 0; 262145 is refused");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	ST_EQ_I(st, pcapw_close(w), 0);
	n = st_slurp(path, file, sizeof(file));
	ST_EQ_I(st, n, 24);
	mrc_st_hex("00 00 04 00", want, sizeof(want));
	st_to_host(want, (const int[]){ 4, 0 });
	ST_EQ_MEM(st, file + 16, want, 4);
	w = NULL;
	errbuf[0] = '\0';
	ST_EQ_I(st, pcapw_open(path, 262145, PCAPW_TS_NS, &w, errbuf), -EINVAL);
	ST_TRUE(st, w == NULL);
	ST_TRUE(st, strstr(errbuf, path) != NULL && strstr(errbuf, "'262145'") != NULL);

	mrc_st_case(st, "flush every record: each record is in the file before close");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	ST_EQ_I(st, st_file_size(path), 24);
	if (w) {
		ST_EQ_I(st, pcapw_write(w, 1, pkt, 100), 0);
		ST_EQ_I(st, st_file_size(path), 24 + 16 + 100);
		ST_EQ_I(st, pcapw_write(w, 2, pkt, 60), 0);
		ST_EQ_I(st, st_file_size(path), 24 + 116 + 76);
		ST_EQ(st, pcapw_count(w), 2);
		ST_EQ_I(st, pcapw_close(w), 0);
	}

	mrc_st_case(st, "flush every 4 records: 3 wait in the buffer, the 4th pushes all");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		pcapw_set_flush_every(w, 4);
		for (int i = 0; i < 3; i++)
			ST_EQ_I(st, pcapw_write(w, 1, pkt, 100), 0);
		ST_EQ_I(st, st_file_size(path), 24);
		ST_EQ_I(st, pcapw_write(w, 1, pkt, 100), 0);
		ST_EQ_I(st, st_file_size(path), 24 + 4 * 116);
		ST_EQ_I(st, pcapw_close(w), 0);
	}

	mrc_st_case(st, "a full buffer never leaves half a record in the file");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		pcapw_set_flush_every(w, 1000000);
		/* 1000 x 1520 B = 1.52 MB passes the 64 KiB buffer 23 times; 64 KiB - 24 is
		 * no multiple of 1520, so a plain stdio flush would cut a record. */
		for (int i = 0; i < 1000; i++)
			pcapw_write(w, 1, pkt, 1504);
		n = st_file_size(path);
		ST_TRUE(st, n > 24 && n < 24 + 1000 * 1520);
		ST_EQ_I(st, (n - 24) % 1520, 0);
		ST_EQ_I(st, pcapw_close(w), 0);
		ST_EQ_I(st, st_file_size(path), 24 + 1000 * 1520);
	}

	mrc_st_case(st, "a record larger than the 64 KiB buffer is in the file when its write "
			"returns, after the records before it; later ones wait in the buffer");
	w = NULL;
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		static uint8_t big[100000];

		pcapw_set_flush_every(w, 1000000);
		ST_EQ_I(st, pcapw_write(w, 1, pkt, 100), 0);
		ST_EQ_I(st, pcapw_write(w, 2, pkt, 100), 0);
		ST_EQ_I(st, st_file_size(path), 24);
		ST_EQ_I(st, pcapw_write(w, 3, big, sizeof(big)), 0);
		/* 24 + 2 x (16 + 100) + 16 + 100000 */
		ST_EQ_I(st, st_file_size(path), 100272);
		ST_EQ_I(st, pcapw_write(w, 4, pkt, 100), 0);
		ST_EQ_I(st, st_file_size(path), 100272);
		ST_EQ_I(st, pcapw_close(w), 0);
		ST_EQ_I(st, st_file_size(path), 100272 + 116);
	}

	mrc_st_case(st, "errors name the file: unwritable path, 32-bit seconds overflow");
	w = NULL;
	errbuf[0] = '\0';
	ST_EQ_I(st, pcapw_open("/nonexistent-dir/x.pcap", 0, PCAPW_TS_NS, &w, errbuf),
		-ENOENT);
	ST_TRUE(st, strstr(errbuf, "pcap open: /nonexistent-dir/x.pcap: ") == errbuf);
	ST_EQ_I(st, pcapw_open(path, 0, PCAPW_TS_NS, &w, errbuf), 0);
	if (w) {
		/* 2^32 s = 4294967296 s is the first second that does not fit. */
		ST_EQ_I(st, pcapw_write(w, 4294967296ull * 1000000000ull, pkt, 60), -ERANGE);
		ST_TRUE(st, strstr(pcapw_error(w), path) != NULL);
		ST_EQ_I(st, pcapw_write(w, 4294967295ull * 1000000000ull, pkt, 60), 0);
		ST_EQ_I(st, pcapw_close(w), 0);
	}

	mrc_st_case(st, "a write error cuts the file back to its last whole record, then sticks");
	st_write_error(st, path, pkt);
	unlink(path);
}
