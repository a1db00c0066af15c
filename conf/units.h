/* SPDX-License-Identifier: BSD-2-Clause */
/* units: exact parsers and printers for YAML 1.2 core integers, sizes, rates and times. */
#ifndef CONF_UNITS_H
#define CONF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * All parsers take a whole NUL-terminated scalar (no surrounding blanks) and return 0,
 * -EINVAL when the text is not of that kind, -ERANGE when the value does not fit in 64
 * bits (or is not a whole number of the base unit), -EDOM when it is negative.
 */

/*
 * Integer of the YAML 1.2 core schema (yaml.org/spec/1.2.2 section 10.3.2):
 * [-+]?[0-9]+ is decimal (so "010" is ten), 0o[0-7]+ octal, 0x[0-9a-fA-F]+ hex.
 * A '-' on a non-zero value gives -EDOM ("-0" is zero).
 */
int conf_parse_uint(const char *s, uint64_t *out);

/*
 * Size in bytes: a number (decimal digits, optional '.' fraction, or a YAML integer)
 * followed by an optional unit B, KB/kB MB GB TB PB (powers of 1000), KiB MiB GiB TiB PiB
 * (powers of 1024). "1.5KiB" is 1536; "1.5B" is -ERANGE (not whole bytes).
 */
int conf_parse_size(const char *s, uint64_t *bytes);

/*
 * Rate in bits per second: a number followed by bps, Kbps/kbps, Mbps, Gbps, Tbps, or the
 * bare multipliers K/k, M, G, T (all powers of 1000): "100Gbps", "400G", "25Mbps",
 * "2.5G". A bare integer is bits per second.
 */
int conf_parse_rate(const char *s, uint64_t *bps);

/*
 * Time in picoseconds: a number and a unit ps, ns, us (or µs), ms, s: "250ps", "2us",
 * "1.5ms", "10s". The unit is required except for a bare 0. Exact: "1.5ps" is -ERANGE.
 */
int conf_parse_time(const char *s, uint64_t *ps);

/*
 * Printers give the shortest exact form in the largest unit that divides the value, so
 * the parsers read the text back to the same number. They write at most @len bytes
 * (24 is always enough) and return @buf.
 */
char *conf_fmt_size(uint64_t bytes, char *buf, size_t len);
char *conf_fmt_rate(uint64_t bps, char *buf, size_t len);
char *conf_fmt_time(uint64_t ps, char *buf, size_t len);

#endif
