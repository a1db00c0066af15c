/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcapw: capture-file writer for raw IPv6 packets (classic pcap format, LINKTYPE_RAW = 101),
 * hiding libpcap from the rest of mrcgen. Format: draft-ietf-opsawg-pcap ("PCAP Capture File
 * Format") §4 file header, §5 packet record; link types: tcpdump.org/linktypes.html.
 */
#ifndef PCAPW_H
#define PCAPW_H

#include <stddef.h>
#include <stdint.h>

/*
 * Link type written to the file header: LINKTYPE_RAW (101), "raw IP, version from the first
 * nibble". Chosen over LINKTYPE_IPV6 (229) because every pcap reader knows 101 (tcpdump,
 * Wireshark, scapy, dpkt, old libpcap), and our records all start with an IPv6 header
 * whose version nibble says 6. Note libpcap's API constant DLT_RAW is 12 on Linux; the
 * FILE value is 101 (libpcap maps one to the other when writing; see shared case C04).
 */
#define PCAPW_LINKTYPE	    101
#define PCAPW_SNAPLEN_MAX   262144 /* libpcap's MAXIMUM_SNAPLEN; also what snaplen 0 means */
#define PCAPW_ERRBUF_SIZE   512
#define PCAPW_FILE_HDR_LEN  24
#define PCAPW_REC_HDR_LEN   16

/* Timestamp resolution of a file: selects the magic (C04). */
enum pcapw_tsresol {
	PCAPW_TS_NS = 0, /* magic 0xa1b23c4d, fraction in nanoseconds */
	PCAPW_TS_US,	 /* magic 0xa1b2c3d4, fraction in microseconds (truncated) */
};

struct pcapw;

/*
 * Creates (truncates) the capture file @path and writes its 24-byte header: magic for
 * @res, version 2.4, @snaplen, link type PCAPW_LINKTYPE, in host byte order (as libpcap
 * writes; readers detect the order from the magic). @snaplen is the most bytes kept of
 * one packet: 0 means PCAPW_SNAPLEN_MAX (tcpdump's "-s 0"); above PCAPW_SNAPLEN_MAX is
 * refused (shared case C05). Records are flushed to the file after every write (see
 * pcapw_set_flush_every). On success stores the writer in @out and returns 0; on failure
 * returns -EINVAL (bad snaplen or resolution) or the negative errno of the open, and puts
 * "pcap open: PATH: reason" in @errbuf (PCAPW_ERRBUF_SIZE bytes) when @errbuf is not NULL.
 */
int pcapw_open(const char *path, uint32_t snaplen, enum pcapw_tsresol res, struct pcapw **out,
	char *errbuf);

/*
 * Appends one packet of @len bytes at @buf captured at @ts_ns (nanoseconds since the
 * Unix epoch, or the simulator's virtual picoseconds / 1000). The record keeps
 * incl_len = min(@len, snaplen) bytes and orig_len = @len. In a microsecond file the
 * fraction is truncated, never rounded (C04). Returns 0; -ERANGE when the seconds do not
 * fit the 32-bit field (after 2106-02-07) or @len exceeds UINT32_MAX (nothing written, the
 * writer stays usable); the negative errno of a failed write (-ENOSPC, -EFBIG, -EIO) when
 * the file cannot be written — pcapw_error() says why. A failed write is final: the file
 * is truncated back to the end of the last record that was wholly written (never a partial
 * record), records not yet in it are dropped, and every later write, flush and close
 * returns the same error without writing.
 */
int pcapw_write(struct pcapw *w, uint64_t ts_ns, const void *buf, size_t len);

/*
 * Flush policy: the file on disk always ends on a record boundary (a record is never
 * split across flushes), and at most @n records written before a crash are lost; @n = 1
 * (the default) pushes every record to the kernel at once, so a killed process leaves
 * every written record in the file. Larger @n trades that for fewer write(2) calls (the
 * cost is measured in docs/performance.md "Captures"). @n = 0 is taken as 1.
 */
void pcapw_set_flush_every(struct pcapw *w, unsigned n);

/* Pushes buffered records to the kernel now. Returns 0 or a negative errno (a failed write,
 * handled as in pcapw_write). */
int pcapw_flush(struct pcapw *w);

/* Records written so far (including those not yet flushed); after a write error, the
 * records the file holds. */
uint64_t pcapw_count(const struct pcapw *w);

/* The last error as "pcap write: PATH: reason" ("" when none). Valid until the next call. */
const char *pcapw_error(const struct pcapw *w);

/*
 * Flushes and closes the file and frees @w (NULL is accepted). Returns 0, or the negative
 * errno of a failed write, now or earlier (the file then ends at its last whole record
 * and lacks the records after it).
 */
int pcapw_close(struct pcapw *w);

#endif
