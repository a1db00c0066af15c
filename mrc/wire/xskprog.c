/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xskprog: the XDP program's BPF object (mrc/wire/bpf/mrc_xdp.c, built by make with
 * clang -target bpf) linked into mrcgen as bytes, so the binary needs no file beside it;
 * mrc/wire/xsk.c opens it with bpf_object__open_mem.
 */
#include "mrc/wire/xsk.h"

#ifndef MRC_XDP_OBJ
#error "MRC_XDP_OBJ: the Makefile passes the BPF object's path"
#endif

__asm__(".pushsection .rodata\n"
	".balign 8\n"
	".globl mrc_xdp_obj_start\n"
	"mrc_xdp_obj_start:\n"
	".incbin \"" MRC_XDP_OBJ "\"\n"
	".globl mrc_xdp_obj_end\n"
	"mrc_xdp_obj_end:\n"
	".popsection\n");
