/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcapw: writes raw-IPv6 capture files through libpcap's dump API (pcap file format:
 * draft-ietf-opsawg-pcap §4-§5); the only file in mrcgen that includes <pcap.h>.
 */
#include "pcap/pcapw.h"

#include <errno.h>
#include <pcap.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc/st.h"

/*
 * Buffering: we own the stdio buffer of the dump file (pcap_dump_fopen on our FILE) so
 * that stdio never flushes on its own in the middle of a record: before a record that
 * would not fit in what is left of the buffer we flush explicitly. A record that does not
 * fit even the empty buffer (over 64 KiB: a snaplen above that and a packet as large)
 * goes through stdio in pieces and is flushed at once, within the same pcapw_write. The
 * file on disk thus ends on a record boundary between calls, whatever
 * pcapw_set_flush_every says. 64 KiB makes few enough write(2) calls for file I/O; it was
 * 1 MiB (sized for the largest snaplen), which was most of a small simulated job's heap.
 *
 * Write errors (a full disk, a file size limit): libpcap's pcap_dump reports none, so every
 * flush is checked through the FILE. A flush that fails may have written part of its
 * records; the writer then drops what stdio still holds, truncates the file back to the end
 * of the last flush that succeeded (a record boundary) and fails every later call with the
 * same error: a capture that could not be written is cut short, never cut mid-record.
 */
#define PCAPW_BUF_SIZE (64u << 10)

struct pcapw {
	pcap_t *dead;		/* the "dead" handle that carries link type, snaplen, precision */
	pcap_dumper_t *dump;
	FILE *f;
	char *buf;		/* stdio buffer of f */
	size_t buf_size;
	size_t pending;		/* bytes written into buf since the last flush */
	unsigned flush_every;	/* records per flush */
	unsigned unflushed;	/* records since the last flush */
	uint32_t snaplen;
	enum pcapw_tsresol res;
	uint64_t count;
	uint64_t bytes;		/* bytes handed to stdio, file header included */
	uint64_t done_bytes;	/* file size at the end of the last good flush */
	uint64_t done_count;	/* records in the file then */
	int failed;		/* 0, or the negative errno of the write that failed (sticky) */
	char *path;
	char err[PCAPW_ERRBUF_SIZE];
};

static void pcapw_set_err(struct pcapw *w, const char *op, int errnum)
{
	snprintf(w->err, sizeof(w->err), "%s: %s: %s", op, w->path, strerror(errnum));
}

int pcapw_open(const char *path, uint32_t snaplen, enum pcapw_tsresol res, struct pcapw **out,
	char *errbuf)
{
	struct pcapw *w;
	int prec, err;

	*out = NULL;
	if (res != PCAPW_TS_NS && res != PCAPW_TS_US) {
		if (errbuf)
			snprintf(errbuf, PCAPW_ERRBUF_SIZE,
				"pcap open: %s: bad timestamp resolution %d", path, (int)res);
		return -EINVAL;
	}
	if (snaplen == 0)
		snaplen = PCAPW_SNAPLEN_MAX;
	if (snaplen > PCAPW_SNAPLEN_MAX) {
		if (errbuf)
			snprintf(errbuf, PCAPW_ERRBUF_SIZE,
				"pcap open: %s: snaplen '%u' above the maximum %u", path, snaplen,
				PCAPW_SNAPLEN_MAX);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->path = strdup(path);
	w->snaplen = snaplen;
	w->res = res;
	w->flush_every = 1;
	w->buf_size = PCAPW_BUF_SIZE;
	w->buf = malloc(w->buf_size);
	if (!w->path || !w->buf) {
		err = -ENOMEM;
		goto free_w;
	}

	/* DLT_RAW is 12 on Linux; libpcap writes it to the file as LINKTYPE_RAW (101). */
	prec = res == PCAPW_TS_NS ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO;
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_RAW, (int)snaplen, (u_int)prec);
	if (!w->dead) {
		err = -ENOMEM;
		goto free_w;
	}
	w->f = fopen(path, "wb");
	if (!w->f) {
		err = -errno;
		pcapw_set_err(w, "pcap open", errno);
		goto close_dead;
	}
	if (setvbuf(w->f, w->buf, _IOFBF, w->buf_size) != 0) {
		err = -ENOMEM;
		pcapw_set_err(w, "pcap open", ENOMEM);
		goto close_file;
	}
	w->dump = pcap_dump_fopen(w->dead, w->f);
	if (!w->dump) {
		err = -EIO;
		snprintf(w->err, sizeof(w->err), "pcap open: %s: %s", path,
			pcap_geterr(w->dead));
		goto close_file;
	}
	/* The header goes to disk now: an empty capture is still a valid file. */
	w->bytes = PCAPW_FILE_HDR_LEN;
	err = pcapw_flush(w);
	if (err) {
		snprintf(w->err, sizeof(w->err), "pcap open: %s: %s", path, strerror(-err));
		pcap_dump_close(w->dump);
		w->f = NULL;
		goto close_dead;
	}
	*out = w;
	return 0;

close_file:
	fclose(w->f);
close_dead:
	pcap_close(w->dead);
free_w:
	if (errbuf)
		snprintf(errbuf, PCAPW_ERRBUF_SIZE, "%s",
			w->err[0] ? w->err : "pcap open: out of memory");
	free(w->buf);
	free(w->path);
	free(w);
	return err;
}

void pcapw_set_flush_every(struct pcapw *w, unsigned n)
{
	w->flush_every = n ? n : 1;
}

/* A write failed with @errnum: keep the file's records whole and make the failure sticky. */
static int pcapw_fail(struct pcapw *w, int errnum)
{
	pcapw_set_err(w, "pcap write", errnum);
	w->failed = -errnum;
	__fpurge(w->f);	/* nothing more reaches the file, not even at close */
	clearerr(w->f);
	/* a failed flush may have written part of a record: back to the last whole one */
	if (ftruncate(fileno(w->f), (off_t)w->done_bytes) != 0 && errno != EINVAL)
		snprintf(w->err + strlen(w->err), sizeof(w->err) - strlen(w->err),
			" (and truncating it back to %llu bytes failed: %s)",
			(unsigned long long)w->done_bytes, strerror(errno));
	w->count = w->done_count;
	w->bytes = w->done_bytes;
	w->pending = 0;
	w->unflushed = 0;
	return w->failed;
}

int pcapw_flush(struct pcapw *w)
{
	if (w->failed)
		return w->failed;
	errno = 0;
	if (pcap_dump_flush(w->dump) != 0 || ferror(w->f))
		return pcapw_fail(w, errno ? errno : EIO);
	w->pending = 0;
	w->unflushed = 0;
	w->done_bytes = w->bytes;
	w->done_count = w->count;
	return 0;
}

int pcapw_write(struct pcapw *w, uint64_t ts_ns, const void *buf, size_t len)
{
	struct pcap_pkthdr h;
	uint64_t sec = ts_ns / 1000000000u;
	uint32_t frac_ns = (uint32_t)(ts_ns % 1000000000u);
	size_t rec;
	bool big;
	int err;

	if (w->failed)
		return w->failed;
	if (sec > UINT32_MAX || len > UINT32_MAX) {
		snprintf(w->err, sizeof(w->err), "pcap write: %s: %s '%llu' does not fit 32 bits",
			w->path, sec > UINT32_MAX ? "timestamp seconds" : "packet length",
			sec > UINT32_MAX ? (unsigned long long)sec : (unsigned long long)len);
		return -ERANGE;
	}
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)sec;
	/* libpcap stores tv_usec verbatim; in a nanosecond dump it holds nanoseconds. */
	h.ts.tv_usec = (suseconds_t)(w->res == PCAPW_TS_NS ? frac_ns : frac_ns / 1000u);
	h.caplen = (bpf_u_int32)(len < w->snaplen ? len : w->snaplen);
	h.len = (bpf_u_int32)len;

	rec = PCAPW_REC_HDR_LEN + h.caplen;
	if (w->pending + rec >= w->buf_size) {
		err = pcapw_flush(w);
		if (err)
			return err;
	}
	big = rec >= w->buf_size; /* stdio writes it in pieces: flushed whole below */
	errno = 0;
	pcap_dump((u_char *)w->dump, &h, buf);
	if (ferror(w->f)) /* stdio flushed on its own (only a big record) and failed */
		return pcapw_fail(w, errno ? errno : EIO);
	w->pending += rec;
	w->bytes += rec;
	w->count++;
	if (big || ++w->unflushed >= w->flush_every)
		return pcapw_flush(w);
	return 0;
}

uint64_t pcapw_count(const struct pcapw *w)
{
	return w->count;
}

const char *pcapw_error(const struct pcapw *w)
{
	return w->err;
}

int pcapw_close(struct pcapw *w)
{
	int err;

	if (!w)
		return 0;
	err = pcapw_flush(w);
	/* after a failure the buffer is already dropped: fclose writes nothing */
	pcap_dump_close(w->dump); /* fcloses w->f */
	pcap_close(w->dead);
	free(w->buf);
	free(w->path);
	free(w);
	return err;
}

/* ---- selftest ------------------------------------------------------------------------ */

/* C01's 112-byte IPv6 + SRH + UDP packet (shared/cases/C01), the packet of case C04. */
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
