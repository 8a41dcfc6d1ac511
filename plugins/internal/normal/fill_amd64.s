//go:build !purego

#include "textflag.h"

// func fillFast(state *uint64, dst []float64) (n int, u uint64)
//
// wyrand, then the ziggurat's common path, as Source.Norm: u = hi ^ lo of
// (state) x (state ^ C2) after state += C1; m = bits 1-31 of u, layer i =
// bits 32-38; accepted when m < zk[i], as float64(m) * zw[i] with u's bit 0
// as the sign.
TEXT ·fillFast(SB), NOSPLIT, $0-48
	MOVQ state+0(FP), DI
	MOVQ (DI), R8
	MOVQ dst_base+8(FP), SI
	MOVQ dst_len+16(FP), CX
	MOVQ $0xa0761d6478bd642f, R9
	MOVQ $0xe7037ed1a0b428db, R10
	LEAQ ·zk(SB), R11
	LEAQ ·zw(SB), R12
	XORQ BX, BX

loop:
	CMPQ     BX, CX
	JGE      full
	ADDQ     R9, R8
	MOVQ     R8, R13
	XORQ     R10, R13
	MOVQ     R8, AX
	MULQ     R13
	XORQ     DX, AX
	MOVL     AX, DI
	SHRL     $1, DI
	MOVQ     AX, R13
	SHRQ     $32, R13
	ANDL     $127, R13
	CMPL     DI, (R11)(R13*4)
	JCC      slow
	XORPS    X0, X0
	CVTSQ2SD DI, X0
	MULSD    (R12)(R13*8), X0
	MOVQ     X0, R13
	SHLQ     $63, AX
	XORQ     AX, R13
	MOVQ     R13, (SI)(BX*8)
	INCQ     BX
	JMP      loop

slow:
	MOVQ state+0(FP), DI
	MOVQ R8, (DI)
	MOVQ BX, n+32(FP)
	MOVQ AX, u+40(FP)
	RET

full:
	MOVQ state+0(FP), DI
	MOVQ R8, (DI)
	MOVQ CX, n+32(FP)
	MOVQ $0, u+40(FP)
	RET
