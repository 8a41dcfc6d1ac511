//go:build !purego

#include "textflag.h"

// func ranks16(keys *[16]float64, k int, pos *[16]int64)
//
// pos[j] = #{i < k : keys[i] > keys[j]} for all 16 lanes j (lanes j >= k
// are computed and ignored). Compares are ordered (GT_OQ): NaN is never
// greater.
TEXT ·ranks16(SB), NOSPLIT, $0-24
	MOVQ    keys+0(FP), SI
	MOVQ    k+8(FP), CX
	MOVQ    pos+16(FP), DI
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VPXOR   Y4, Y4, Y4
	VPXOR   Y5, Y5, Y5
	VPXOR   Y6, Y6, Y6
	VPXOR   Y7, Y7, Y7
	XORQ    AX, AX

loop:
	CMPQ         AX, CX
	JGE          done
	VBROADCASTSD (SI)(AX*8), Y8
	VCMPPD       $0x1e, Y0, Y8, Y9
	VCMPPD       $0x1e, Y1, Y8, Y10
	VCMPPD       $0x1e, Y2, Y8, Y11
	VCMPPD       $0x1e, Y3, Y8, Y12
	VPSUBQ       Y9, Y4, Y4
	VPSUBQ       Y10, Y5, Y5
	VPSUBQ       Y11, Y6, Y6
	VPSUBQ       Y12, Y7, Y7
	INCQ         AX
	JMP          loop

done:
	VMOVDQU Y4, 0(DI)
	VMOVDQU Y5, 32(DI)
	VMOVDQU Y6, 64(DI)
	VMOVDQU Y7, 96(DI)
	VZEROUPPER
	RET
