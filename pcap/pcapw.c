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
