/* SPDX-License-Identifier: BSD-2-Clause */
/* xsk: a NIC port's XDP program and AF_XDP socket (see xsk.h). */
#include "mrc/wire/xsk.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4) /* multi-buffer AF_XDP, Linux 6.6 (if_xdp.h of newer kernels) */
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)
#endif

#define HUGE_PAGE (2u << 20)
#define RX_BATCH 256u
#define REASM_BIT (1ull << 63)

struct mrc_xsk {
	struct mrc_xsk_params p;
	struct mrc_xsk_info info;
	char ifname[IF_NAMESIZE];
	struct bpf_object *obj;
	int link_fd, xsks_fd, counts_fd;
	uint8_t *umem_area;
	size_t umem_size;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint64_t reasm_base, tx_base;	/* UMEM offsets of the regions */
	uint32_t slot_bytes;
	/* receive: frames released and not yet back in the fill ring */
	uint64_t *stash;
	unsigned n_stash;
	uint32_t *reasm_free;
	unsigned n_reasm_free;
	/* send */
	uint32_t *tx_free;
	unsigned n_tx_free;
	uint8_t *pend;		/* per slot: descriptors not yet completed */
	uint8_t *lent;		/* per slot: 0 own, else 1 + the lane it is lent to */
	uint32_t *slot_len;
	unsigned tx_queued;	/* descriptors reserved and not yet submitted */
	void (*done)(void *ctx, uint8_t lane, uint32_t slot);
	void *done_ctx;
	uint8_t l2[14];		/* the Ethernet header: next hop, port, IPv6 */
	struct mrc_xsk_stats st;
};

/* "xdp: port 'IF': ..." into @err; returns @e. */
static int xerr(int e, char *err, size_t errlen, const char *ifn, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int xerr(int e, char *err, size_t errlen, const char *ifn, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "xdp: port '%s': ", ifn);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return e;
}

#define FALLBACK "wire.dataplane: socket (or auto) runs on raw sockets instead"

/* ---- the device ---- */

static unsigned count_queues(const char *ifn)
{
	char path[96];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifn);
	dir = opendir(path);
	if (!dir)
		return 1; /* no sysfs: let the bind tell */
	while ((d = readdir(dir)))
		n += strncmp(d->d_name, "rx-", 3) == 0;
	closedir(dir);
	return n ? n : 1;
}

static void dev_facts(struct mrc_xsk *x)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(x->info.driver, sizeof(x->info.driver), "?");
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", x->ifname);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		snprintf(x->info.driver, sizeof(x->info.driver), "%s", di.driver);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", x->ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(x->info.mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

/* ---- the program ---- */

static int prog_open(struct bpf_object **obj, int *prog_fd)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "mrc_xdp");
	struct bpf_program *prog;
	int e;

	*obj = bpf_object__open_mem(mrc_xdp_obj_start,
		(size_t)(mrc_xdp_obj_end - mrc_xdp_obj_start), &oo);
	if (!*obj)
		return -errno ? -errno : -EINVAL;
	e = bpf_object__load(*obj);
	if (e) {
		bpf_object__close(*obj);
		*obj = NULL;
		return e;
	}
	prog = bpf_object__find_program_by_name(*obj, "mrc_xdp");
	*prog_fd = prog ? bpf_program__fd(prog) : -ENOENT;
	return *prog_fd < 0 ? *prog_fd : 0;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

static int set_addrs(struct bpf_object *obj, const struct mrc_xdp_cfg *c)
{
	uint32_t zero = 0;
	int fd = map_fd(obj, "mrc_cfg");

	if (fd < 0)
		return fd;
	return bpf_map_update_elem(fd, &zero, c, BPF_ANY) ? -errno : 0;
}

/* The program's counters summed over the CPUs into @out (added). */
static void read_counts(int fd, uint64_t out[MRC_XDP_NCOUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (fd < 0 || ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (uint32_t k = 0; k < MRC_XDP_NCOUNT; k++)
		if (!bpf_map_lookup_elem(fd, &k, v))
			for (int c = 0; c < ncpu; c++)
				out[k] += v[c];
	free(v);
}

int mrc_xsk_prog_test(const struct mrc_xdp_cfg *addrs, const uint8_t *frame, size_t len,
	uint64_t counts[MRC_XDP_NCOUNT])
{
	struct bpf_object *obj;
	uint8_t out[MRC_XSK_MAX_FRAME];
	int prog_fd, e = prog_open(&obj, &prog_fd);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = (uint32_t)len,
		.data_out = out, .data_size_out = sizeof(out), .repeat = 1);

	if (e)
		return e;
	e = set_addrs(obj, addrs);
	if (!e)
		e = bpf_prog_test_run_opts(prog_fd, &o) ? -errno : (int)o.retval;
	read_counts(map_fd(obj, "mrc_counts"), counts);
	bpf_object__close(obj);
	return e;
}

static int attach(struct mrc_xsk *x, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	int prog_fd, e = prog_open(&x->obj, &prog_fd);

	if (e == -EPERM || e == -EACCES)
		return xerr(-EPERM, err, errlen, x->ifname, "loading the XDP program needs "
			"CAP_NET_ADMIN and CAP_BPF (run as root); " FALLBACK ", which needs only "
			"CAP_NET_RAW");
	if (e)
		return xerr(e, err, errlen, x->ifname, "loading the XDP program: %s (kernel "
			"with BPF, BTF and AF_XDP: docs/wire-xdp.md \"Kernel\")", strerror(-e));
	e = set_addrs(x->obj, &x->p.addrs);
	x->xsks_fd = map_fd(x->obj, "mrc_xsks");
	x->counts_fd = map_fd(x->obj, "mrc_counts");
	if (e || x->xsks_fd < 0 || x->counts_fd < 0)
		return xerr(e ? e : -ENOENT, err, errlen, x->ifname, "the XDP program's maps: %s",
			strerror(e ? -e : ENOENT));
	x->link_fd = bpf_link_create(prog_fd, (int)x->info.ifindex, BPF_XDP, &lo);
	if (x->link_fd >= 0)
		return 0;
	e = -errno;
	if (e == -EPERM || e == -EACCES)
		return xerr(-EPERM, err, errlen, x->ifname, "attaching XDP needs CAP_NET_ADMIN "
			"(run as root); " FALLBACK);
	if (e == -EBUSY || e == -EEXIST)
		return xerr(-EBUSY, err, errlen, x->ifname, "another XDP program is attached "
			"(ip link show dev %s; remove it with ip link set dev %s xdp off)",
			x->ifname, x->ifname);
	if (e == -EOPNOTSUPP || e == -EINVAL)
		return xerr(-EOPNOTSUPP, err, errlen, x->ifname, "driver '%s' has no native "
			"XDP (%s); the xdp dataplane needs it: " FALLBACK, x->info.driver,
			strerror(-e));
	return xerr(e, err, errlen, x->ifname, "attaching XDP: %s", strerror(-e));
}

/* ---- UMEM and socket ---- */

static void umem_unmap(struct mrc_xsk *x)
{
	if (x->umem_area)
		munmap(x->umem_area, x->umem_size);
	x->umem_area = NULL;
}

static int umem_map(struct mrc_xsk *x, size_t frames)
{
	size_t size = frames * MRC_XSK_FRAME;
	void *m = MAP_FAILED;

	if (x->p.hugepages) {
		size_t hs = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;

		m = mmap(NULL, hs, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (m != MAP_FAILED)
			size = hs;
	}
	x->info.hugepages = m != MAP_FAILED;
	if (m == MAP_FAILED)
		m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	x->umem_area = m;
	x->umem_size = size;
	return 0;
}

/* Binds with @bind flags; on failure leaves no socket and no UMEM registered. */
static int bind_xsk(struct mrc_xsk *x, uint16_t bind)
{
	struct xsk_umem_config uc = {
		.fill_size = x->p.rx_frames, .comp_size = 2 * x->p.tx_slots,
		.frame_size = MRC_XSK_FRAME, .frame_headroom = 0, .flags = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = x->p.rx_frames, .tx_size = 2 * x->p.tx_slots,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD, .xdp_flags = 0,
		.bind_flags = bind,
	};
	int e = xsk_umem__create(&x->umem, x->umem_area, x->umem_size, &x->fq, &x->cq, &uc);

	if (e)
		return e;
	e = xsk_socket__create(&x->xsk, x->ifname, x->p.queue, x->umem, &x->rx, &x->tx, &sc);
	if (e) {
		x->xsk = NULL;
		xsk_umem__delete(x->umem);
		x->umem = NULL;
	}
	return e;
}

static int open_socket(struct mrc_xsk *x, char *err, size_t errlen)
{
	uint16_t base = XDP_USE_NEED_WAKEUP | (x->info.multi_buffer ? XDP_USE_SG : 0);
	int e = -EOPNOTSUPP;
	struct xdp_options opt;
	socklen_t ol = sizeof(opt);

	if (x->p.copy != MRC_XSK_COPY)
		e = bind_xsk(x, base | XDP_ZEROCOPY);
	if (e && x->p.copy == MRC_XSK_ZEROCOPY)
		return xerr(-EOPNOTSUPP, err, errlen, x->ifname, "driver '%s' has no AF_XDP zero "
			"copy on queue %u (%s); wire.xdp_copy: auto falls back to copy mode",
			x->info.driver, x->p.queue, strerror(-e));
	if (e)
		e = bind_xsk(x, base | XDP_COPY);
	if (e == -EINVAL && x->info.multi_buffer)
		return xerr(-EOPNOTSUPP, err, errlen, x->ifname, "frames of %u bytes need "
			"multi-buffer AF_XDP (XDP_USE_SG, Linux 6.6), which the kernel refused: "
			"lower mrc.mtu to %u or less, or " FALLBACK, x->p.max_frame,
			MRC_XSK_FRAME - 256 - 14 - 150);
	if (e == -EPERM || e == -EACCES)
		return xerr(-EPERM, err, errlen, x->ifname, "AF_XDP needs CAP_NET_ADMIN (run as "
			"root); " FALLBACK);
	if (e == -ENOBUFS || e == -ENOMEM)
		return xerr(-ENOMEM, err, errlen, x->ifname, "AF_XDP: UMEM of %zu bytes: %s "
			"(RLIMIT_MEMLOCK? ulimit -l unlimited)", x->umem_size, strerror(-e));
	if (e)
		return xerr(e, err, errlen, x->ifname, "AF_XDP socket on queue %u: %s", x->p.queue,
			strerror(-e));
	if (getsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_OPTIONS, &opt, &ol) == 0)
		x->info.zero_copy = opt.flags & XDP_OPTIONS_ZEROCOPY;
	x->info.need_wakeup = true;
	if (bpf_map_update_elem(x->xsks_fd, &x->p.queue, &(int){ xsk_socket__fd(x->xsk) },
		    BPF_ANY))
		return xerr(-errno, err, errlen, x->ifname, "socket map: %s", strerror(errno));
	return 0;
}

int mrc_xsk_open(const struct mrc_xsk_params *p, struct mrc_xsk **out, char *err,
	size_t errlen)
{
	struct mrc_xsk *x = calloc(1, sizeof(*x));
	size_t frames;
	uint32_t idx;
	int e;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	x->p = *p;
	x->link_fd = x->xsks_fd = x->counts_fd = -1;
	if (!x->p.rx_frames)
		x->p.rx_frames = 8192;
	if (!x->p.tx_slots)
		x->p.tx_slots = 1024;
	if (!x->p.reasm_slots)
		x->p.reasm_slots = 512;
	if (!p->ifname || strlen(p->ifname) >= sizeof(x->ifname)) {
		e = xerr(-EINVAL, err, errlen, p->ifname ? p->ifname : "", "bad interface name");
		goto fail;
	}
	snprintf(x->ifname, sizeof(x->ifname), "%s", p->ifname);
	if (x->p.max_frame < 64 || x->p.max_frame > MRC_XSK_MAX_FRAME ||
		(x->p.rx_frames & (x->p.rx_frames - 1))) {
		e = xerr(-EINVAL, err, errlen, x->ifname, "frame of %u bytes, %u receive frames: "
			"want 64..%u and a power of two", x->p.max_frame, x->p.rx_frames,
			MRC_XSK_MAX_FRAME);
		goto fail;
	}
	x->info.ifindex = if_nametoindex(x->ifname);
	if (!x->info.ifindex) {
		e = xerr(-ENODEV, err, errlen, x->ifname, "no such interface");
		goto fail;
	}
	dev_facts(x);
	x->info.queues = count_queues(x->ifname);
	if (x->p.queue >= x->info.queues) {
		e = xerr(-ERANGE, err, errlen, x->ifname, "queue %u: the device has %u receive "
			"queue%s (ethtool -l %s); set wire.xdp_queue below that", x->p.queue,
			x->info.queues, x->info.queues == 1 ? "" : "s", x->ifname);
		goto fail;
	}
	x->info.multi_buffer = x->p.max_frame > MRC_XSK_FRAME - 256;
	x->info.slot_frames = (x->p.max_frame + MRC_XSK_FRAME - 1) / MRC_XSK_FRAME;
	x->slot_bytes = x->info.slot_frames * MRC_XSK_FRAME;
	e = attach(x, err, errlen);
	if (e)
		goto fail;
	frames = x->p.rx_frames + (size_t)(x->p.reasm_slots + x->p.tx_slots) *
		x->info.slot_frames;
	e = umem_map(x, frames);
	if (e) {
		e = xerr(e, err, errlen, x->ifname, "UMEM of %zu frames: %s", frames,
			strerror(-e));
		goto fail;
	}
	x->reasm_base = (uint64_t)x->p.rx_frames * MRC_XSK_FRAME;
	x->tx_base = x->reasm_base + (uint64_t)x->p.reasm_slots * x->slot_bytes;
	x->stash = calloc(x->p.rx_frames, sizeof(*x->stash));
	x->reasm_free = calloc(x->p.reasm_slots, sizeof(*x->reasm_free));
	x->tx_free = calloc(x->p.tx_slots, sizeof(*x->tx_free));
	x->pend = calloc(x->p.tx_slots, 1);
	x->lent = calloc(x->p.tx_slots, 1);
	x->slot_len = calloc(x->p.tx_slots, sizeof(*x->slot_len));
	if (!x->stash || !x->reasm_free || !x->tx_free || !x->pend || !x->lent ||
		!x->slot_len) {
		e = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < x->p.reasm_slots; i++)
		x->reasm_free[x->n_reasm_free++] = x->p.reasm_slots - 1 - i;
	for (unsigned i = 0; i < x->p.tx_slots; i++)
		x->tx_free[x->n_tx_free++] = x->p.tx_slots - 1 - i;
	e = open_socket(x, err, errlen);
	if (e)
		goto fail;
	if (xsk_ring_prod__reserve(&x->fq, x->p.rx_frames, &idx) != x->p.rx_frames) {
		e = xerr(-ENOSPC, err, errlen, x->ifname, "fill ring: no room");
		goto fail;
	}
	for (unsigned i = 0; i < x->p.rx_frames; i++)
		*xsk_ring_prod__fill_addr(&x->fq, idx + i) = (uint64_t)i * MRC_XSK_FRAME;
	xsk_ring_prod__submit(&x->fq, x->p.rx_frames);
	memcpy(x->l2 + 6, x->info.mac, 6);
	x->l2[12] = 0x86;
	x->l2[13] = 0xdd;
	*out = x;
	return 0;
fail:
	mrc_xsk_close(x);
	return e;
}

void mrc_xsk_close(struct mrc_xsk *x)
{
	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->link_fd >= 0)
		close(x->link_fd); /* detaches the program */
	bpf_object__close(x->obj);
	umem_unmap(x);
	free(x->stash);
	free(x->reasm_free);
	free(x->tx_free);
	free(x->pend);
	free(x->lent);
	free(x->slot_len);
	free(x);
}

const struct mrc_xsk_info *mrc_xsk_info(const struct mrc_xsk *x)
{
	return &x->info;
}

int mrc_xsk_fd(const struct mrc_xsk *x)
{
	return xsk_socket__fd(x->xsk);
}

/* ---- next hop ---- */

struct nl_req {
	struct nlmsghdr nh;
	union {
		struct rtmsg rt;
		struct ndmsg nd;
	};
	uint8_t attrs[64];
};

static void nl_attr(struct nl_req *r, uint16_t type, const void *data, uint16_t len)
{
	struct rtattr *a = (struct rtattr *)((uint8_t *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (uint16_t)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/*
 * Sends @r and reads its answer into @buf; returns the answer's first message, NULL with
 * *@e set (a negative errno: the kernel's NLMSG_ERROR, or the socket's).
 */
static struct nlmsghdr *nl_ask(struct nl_req *r, uint8_t *buf, size_t cap, int *e)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct nlmsghdr *h;
	ssize_t n;

	*e = 0;
	if (fd < 0) {
		*e = -errno;
		return NULL;
	}
	if (send(fd, r, r->nh.nlmsg_len, 0) < 0 || (n = recv(fd, buf, cap, 0)) < 0) {
		*e = -errno;
		close(fd);
		return NULL;
	}
	close(fd);
	h = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(h, (size_t)n)) {
		*e = -EPROTO;
		return NULL;
	}
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *ne = NLMSG_DATA(h);

		*e = ne->error ? ne->error : -ENOENT;
		return NULL;
	}
	return h;
}

/* The gateway of the route to @dst out of @ifindex (@dst itself when on link). */
static int route_gw(unsigned ifindex, const uint8_t dst[16], uint8_t gw[16], unsigned *oif)
{
	struct nl_req r = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
		.nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_REQUEST } };
	uint8_t buf[4096];
	struct nlmsghdr *h;
	struct rtattr *a;
	int e, len;

	r.rt.rtm_family = AF_INET6;
	r.rt.rtm_dst_len = 128;
	nl_attr(&r, RTA_DST, dst, 16);
	nl_attr(&r, RTA_OIF, &(uint32_t){ ifindex }, 4);
	h = nl_ask(&r, buf, sizeof(buf), &e);
	if (!h)
		return e;
	memcpy(gw, dst, 16);
	*oif = 0;
	len = (int)RTM_PAYLOAD(h);
	for (a = RTM_RTA(NLMSG_DATA(h)); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == 16)
			memcpy(gw, RTA_DATA(a), 16);
		else if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) == 4)
			memcpy(oif, RTA_DATA(a), 4);
	}
	return 0;
}

/* The neighbour entry of @addr on @ifindex: 0 with its MAC, -ENOENT when none is valid. */
static int neigh_mac(unsigned ifindex, const uint8_t addr[16], uint8_t mac[6])
{
	struct nl_req r = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		.nlmsg_type = RTM_GETNEIGH, .nlmsg_flags = NLM_F_REQUEST } };
	uint8_t buf[4096];
	struct nlmsghdr *h;
	struct ndmsg *nd;
	struct rtattr *a;
	int e, len;

	r.nd.ndm_family = AF_INET6;
	r.nd.ndm_ifindex = (int)ifindex;
	nl_attr(&r, NDA_DST, addr, 16);
	h = nl_ask(&r, buf, sizeof(buf), &e);
	if (!h)
		return e;
	nd = NLMSG_DATA(h);
	if (!(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE |
		NUD_PERMANENT | NUD_NOARP)))
		return -ENOENT;
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)));
	for (a = (struct rtattr *)((uint8_t *)nd + NLMSG_ALIGN(sizeof(*nd))); RTA_OK(a, len);
		a = RTA_NEXT(a, len)) {
		if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
			memcpy(mac, RTA_DATA(a), 6);
			return 0;
		}
	}
	return -ENOENT;
}

/* Makes the kernel resolve @gw on @ifindex: one datagram to its discard port. */
static void neigh_kick(const char *ifn, unsigned ifindex, const uint8_t gw[16])
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9),
		.sin6_scope_id = ifindex };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	memcpy(&sa.sin6_addr, gw, 16);
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifn, (socklen_t)strlen(ifn) + 1);
	sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
}

int mrc_xsk_resolve(struct mrc_xsk *x, const uint8_t dst[16], unsigned wait_ms, char *err,
	size_t errlen)
{
	uint8_t gw[16], mac[6];
	char a[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];
	unsigned oif;
	int e = route_gw(x->info.ifindex, dst, gw, &oif);

	inet_ntop(AF_INET6, dst, a, sizeof(a));
	if (e)
		return xerr(-EHOSTUNREACH, err, errlen, x->ifname, "no route to %s: %s", a,
			strerror(-e));
	if (oif && oif != x->info.ifindex)
		return xerr(-EHOSTUNREACH, err, errlen, x->ifname, "the route to %s leaves by "
			"another interface (ifindex %u)", a, oif);
	inet_ntop(AF_INET6, gw, g, sizeof(g));
	for (unsigned t = 0;; t += 10) {
		if (neigh_mac(x->info.ifindex, gw, mac) == 0)
			break;
		if (t >= wait_ms)
			return xerr(-EHOSTUNREACH, err, errlen, x->ifname, "next hop %s (route to "
				"%s): no neighbour entry after %u ms", g, a, wait_ms);
		if (t % 200 == 0)
			neigh_kick(x->ifname, x->info.ifindex, gw);
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	mrc_xsk_set_nexthop(x, mac);
	return 0;
}

void mrc_xsk_set_nexthop(struct mrc_xsk *x, const uint8_t mac[6])
{
	memcpy(x->info.nexthop_mac, mac, 6);
	memcpy(x->l2, mac, 6);
}

/* ---- send ---- */

static uint8_t *slot_base(const struct mrc_xsk *x, uint32_t slot)
{
	return x->umem_area + x->tx_base + (uint64_t)slot * x->slot_bytes;
}

uint8_t *mrc_xsk_slot_buf(const struct mrc_xsk *x, uint32_t slot, size_t *cap)
{
	*cap = x->slot_bytes - MRC_XDP_ETH_HLEN;
	return slot_base(x, slot) + MRC_XDP_ETH_HLEN;
}

uint8_t *mrc_xsk_tx_buf(struct mrc_xsk *x, size_t *cap)
{
	if (!x->n_tx_free)
		return NULL;
	return mrc_xsk_slot_buf(x, x->tx_free[x->n_tx_free - 1], cap);
}

int mrc_xsk_tx_slot(struct mrc_xsk *x, uint32_t slot, size_t len)
{
	size_t frame = len + MRC_XDP_ETH_HLEN;
	unsigned nd = (unsigned)((frame + MRC_XSK_FRAME - 1) / MRC_XSK_FRAME);
	uint64_t addr = x->tx_base + (uint64_t)slot * x->slot_bytes;
	uint32_t idx;

	if (frame > x->slot_bytes || frame > x->p.max_frame || len < 40)
		return -EMSGSIZE;
	if (xsk_ring_prod__reserve(&x->tx, nd, &idx) != nd)
		return -ENOBUFS;
	memcpy(x->umem_area + addr, x->l2, sizeof(x->l2));
	for (unsigned i = 0; i < nd; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
		size_t left = frame - (size_t)i * MRC_XSK_FRAME;

		d->addr = addr + (uint64_t)i * MRC_XSK_FRAME;
		d->len = (uint32_t)(left < MRC_XSK_FRAME ? left : MRC_XSK_FRAME);
		d->options = i + 1 < nd ? XDP_PKT_CONTD : 0;
	}
	x->pend[slot] = (uint8_t)nd;
	x->slot_len[slot] = (uint32_t)len;
	x->tx_queued += nd;
	return 0;
}

int mrc_xsk_tx_commit(struct mrc_xsk *x, size_t len)
{
	int e;

	if (!x->n_tx_free)
		return -ENOBUFS;
	e = mrc_xsk_tx_slot(x, x->tx_free[x->n_tx_free - 1], len);
	if (!e)
		x->n_tx_free--;
	return e;
}

unsigned mrc_xsk_lend(struct mrc_xsk *x, unsigned n, uint32_t *slots, uint8_t lane)
{
	unsigned k = 0;

	while (k < n && x->n_tx_free) {
		uint32_t s = x->tx_free[--x->n_tx_free];

		x->lent[s] = (uint8_t)(lane + 1);
		slots[k++] = s;
	}
	return k;
}

void mrc_xsk_set_done(struct mrc_xsk *x, void (*done)(void *ctx, uint8_t lane, uint32_t slot),
	void *ctx)
{
	x->done = done;
	x->done_ctx = ctx;
}

unsigned mrc_xsk_tx_free(const struct mrc_xsk *x)
{
	return x->n_tx_free;
}

static unsigned reap(struct mrc_xsk *x)
{
	uint32_t idx;
	unsigned n = xsk_ring_cons__peek(&x->cq, 2 * x->p.tx_slots, &idx), pkts = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t a = *xsk_ring_cons__comp_addr(&x->cq, idx + i);
		uint32_t s;

		if (a < x->tx_base)
			continue; /* not a send slot's (cannot happen) */
		s = (uint32_t)((a - x->tx_base) / x->slot_bytes);
		if (s >= x->p.tx_slots || !x->pend[s] || --x->pend[s])
			continue;
		pkts++;
		x->st.tx++;
		x->st.tx_bytes += x->slot_len[s];
		if (x->lent[s] && x->done)
			x->done(x->done_ctx, (uint8_t)(x->lent[s] - 1), s);
		else
			x->tx_free[x->n_tx_free++] = s;
	}
	xsk_ring_cons__release(&x->cq, n);
	return pkts;
}

/* Kicks the kernel's send; in copy mode each call sends a batch, so it goes on while the
 * kernel takes descriptors (bounded). */
static void kick(struct mrc_xsk *x)
{
	for (int i = 0; i < 64; i++) {
		uint32_t before = *x->tx.consumer;

		x->st.tx_kicks++;
		if (sendto(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
			errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
			x->st.tx_kick_errors++;
			x->st.last_kick_error = -errno;
			return;
		}
		if (*x->tx.consumer == *x->tx.producer || *x->tx.consumer == before ||
			x->info.zero_copy)
			return;
	}
}

unsigned mrc_xsk_flush(struct mrc_xsk *x)
{
	if (x->n_stash) {
		uint32_t idx;
		unsigned n = xsk_ring_prod__reserve(&x->fq, x->n_stash, &idx);

		for (unsigned i = 0; i < n; i++)
			*xsk_ring_prod__fill_addr(&x->fq, idx + i) = x->stash[x->n_stash - 1 - i];
		xsk_ring_prod__submit(&x->fq, n);
		x->n_stash -= n;
		if (n && x->info.zero_copy && xsk_ring_prod__needs_wakeup(&x->fq))
			recvfrom(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
	}
	if (x->tx_queued) {
		xsk_ring_prod__submit(&x->tx, x->tx_queued);
		x->tx_queued = 0;
	}
	if (*x->tx.consumer != *x->tx.producer &&
		(!x->info.zero_copy || xsk_ring_prod__needs_wakeup(&x->tx)))
		kick(x);
	return reap(x);
}

/* ---- receive ---- */

static void frame_release(struct mrc_xsk *x, uint64_t addr)
{
	if (x->n_stash < x->p.rx_frames)
		x->stash[x->n_stash++] = addr & ~(uint64_t)(MRC_XSK_FRAME - 1);
}

void mrc_xsk_rx_release(struct mrc_xsk *x, uint64_t h)
{
	if (h & REASM_BIT)
		x->reasm_free[x->n_reasm_free++] = (uint32_t)(h & 0xffffffffu);
	else
		frame_release(x, h);
}

bool mrc_xsk_rx_ready(struct mrc_xsk *x)
{
	return xsk_cons_nb_avail(&x->rx, 1) > 0;
}

unsigned mrc_xsk_rx(struct mrc_xsk *x, struct mrc_xsk_pkt *pkts, unsigned max)
{
	uint32_t idx;
	unsigned avail = xsk_ring_cons__peek(&x->rx, RX_BATCH, &idx), i = 0, n = 0;

	while (i < avail && n < max) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
		unsigned j = i;
		size_t total = 0;

		if (!(d->options & XDP_PKT_CONTD)) {
			i++;
			if (d->len < MRC_XDP_ETH_HLEN + 40) {
				x->st.rx_dropped++;
				frame_release(x, d->addr);
				continue;
			}
			pkts[n++] = (struct mrc_xsk_pkt){ x->umem_area + d->addr +
				MRC_XDP_ETH_HLEN, d->len - MRC_XDP_ETH_HLEN, d->addr };
			continue;
		}
		/* a multi-buffer packet: every buffer is in the ring, or none is taken yet */
		while (j < avail && (xsk_ring_cons__rx_desc(&x->rx, idx + j)->options &
			XDP_PKT_CONTD))
			total += xsk_ring_cons__rx_desc(&x->rx, idx + j++)->len;
		if (j == avail)
			break;
		total += xsk_ring_cons__rx_desc(&x->rx, idx + j++)->len;
		if (total > x->slot_bytes || total < MRC_XDP_ETH_HLEN + 40 ||
			!x->n_reasm_free) {
			x->st.rx_dropped++;
		} else {
			uint32_t s = x->reasm_free[--x->n_reasm_free];
			uint8_t *to = x->umem_area + x->reasm_base + (uint64_t)s * x->slot_bytes;
			size_t off = 0;

			for (unsigned k = i; k < j; k++) {
				const struct xdp_desc *f = xsk_ring_cons__rx_desc(&x->rx, idx + k);

				memcpy(to + off, x->umem_area + f->addr, f->len);
				off += f->len;
			}
			x->st.rx_reassembled++;
			pkts[n++] = (struct mrc_xsk_pkt){ to + MRC_XDP_ETH_HLEN,
				(uint32_t)(total - MRC_XDP_ETH_HLEN), REASM_BIT | s };
		}
		for (unsigned k = i; k < j; k++)
			frame_release(x, xsk_ring_cons__rx_desc(&x->rx, idx + k)->addr);
		i = j;
	}
	x->rx.cached_cons -= avail - i; /* what was peeked and not taken is read again */
	xsk_ring_cons__release(&x->rx, i);
	for (unsigned k = 0; k < n; k++) {
		x->st.rx++;
		x->st.rx_bytes += pkts[k].len;
	}
	return n;
}

void mrc_xsk_get_stats(const struct mrc_xsk *x, struct mrc_xsk_stats *s)
{
	struct xdp_statistics ks;
	socklen_t l = sizeof(ks);

	*s = x->st;
	memset(s->prog, 0, sizeof(s->prog));
	if (x->xsk && !getsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_STATISTICS, &ks, &l)) {
		s->k_rx_dropped = ks.rx_dropped;
		s->k_rx_invalid = ks.rx_invalid_descs;
		s->k_tx_invalid = ks.tx_invalid_descs;
		s->k_rx_ring_full = ks.rx_ring_full;
		s->k_fill_empty = ks.rx_fill_ring_empty_descs;
	}
	read_counts(x->counts_fd, s->prog);
}
