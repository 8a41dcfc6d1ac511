//go:build !purego

#include "textflag.h"

DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8

// func absDiffColsAVX(a, b []float64, stride int, out []float64)
//
// For each column t of b (stride elements apart), out[t] = sum over s of
// |a[s] - b[t*stride+s]|, summed as absDiffSum does: lane l of a register
// holds the sum of the elements s = l mod 4, the last len(a) mod 4 elements
// are added to lane 0 in order, and the result is (l0 + l1) + (l2 + l3).
// Columns go two at a time, so that two chains of additions overlap; an
// odd last column is paired with itself.
TEXT ·absDiffColsAVX(SB), NOSPLIT, $0-80
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	MOVQ stride+48(FP), R8
	SHLQ $3, R8
	MOVQ out_base+56(FP), R9
	MOVQ out_len+64(FP), R10
	VBROADCASTSD absmask<>(SB), Y15
	MOVQ CX, R11
	ANDQ $-4, R11

pairs:
	CMPQ R10, $1
	JLT  done
	LEAQ (DI)(R8*1), DX
	CMPQ R10, $2
	JGE  twocols
	MOVQ DI, DX // one column left: pair it with itself, keep one sum

twocols:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ   AX, AX

pairloop:
	CMPQ    AX, R11
	JGE     pairtail
	VMOVUPD (SI)(AX*8), Y4
	VSUBPD  (DI)(AX*8), Y4, Y5
	VSUBPD  (DX)(AX*8), Y4, Y6
	VANDPD  Y15, Y5, Y5
	VANDPD  Y15, Y6, Y6
	VADDPD  Y5, Y0, Y0
	VADDPD  Y6, Y1, Y1
	ADDQ    $4, AX
	JMP     pairloop

pairtail:
	VEXTRACTF128 $1, Y0, X2
	VEXTRACTF128 $1, Y1, X3

pairtailloop:
	CMPQ   AX, CX
	JGE    pairsum
	VMOVSD (SI)(AX*8), X4
	VSUBSD (DI)(AX*8), X4, X5
	VSUBSD (DX)(AX*8), X4, X6
	VANDPD X15, X5, X5
	VANDPD X15, X6, X6
	VADDSD X5, X0, X0
	VADDSD X6, X1, X1
	INCQ   AX
	JMP    pairtailloop

pairsum:
	VPERMILPD $1, X0, X4
	VADDSD    X4, X0, X0
	VPERMILPD $1, X2, X4
	VADDSD    X4, X2, X2
	VADDSD    X2, X0, X0
	VMOVSD    X0, (R9)
	CMPQ      R10, $2
	JLT       done
	VPERMILPD $1, X1, X4
	VADDSD    X4, X1, X1
	VPERMILPD $1, X3, X4
	VADDSD    X4, X3, X3
	VADDSD    X3, X1, X1
	VMOVSD    X1, 8(R9)
	ADDQ      $16, R9
	LEAQ      (DI)(R8*2), DI
	SUBQ      $2, R10
	JMP       pairs

done:
	VZEROUPPER
	RET

// func pairGradAVX(pair []float64, pi []float64, rows int, dot float64, g []float64)
//
// g[i] = sum over l < k of pair[l*k+i] * pi[l], minus dot, for i < rows,
// with k = len(pi): lanes are rows, and each lane multiplies then adds in
// the order of l, as the Go loop over row i of the symmetric matrix does.
// Eight rows at a time while they last, then four.
TEXT ·pairGradAVX(SB), NOSPLIT, $0-88
	MOVQ         pair_base+0(FP), SI
	MOVQ         pi_base+24(FP), DX
	MOVQ         pi_len+32(FP), CX
	MOVQ         rows+48(FP), R8
	VBROADCASTSD dot+56(FP), Y15
	MOVQ         g_base+64(FP), DI
	MOVQ         CX, R9
	SHLQ         $3, R9
	XORQ         BX, BX

groups:
	CMPQ BX, R8
	JGE  gdone
	LEAQ 8(BX), AX
	CMPQ AX, R8
	JGT  four
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	LEAQ (SI)(BX*8), R10
	XORQ AX, AX

eightloop:
	CMPQ         AX, CX
	JGE          eightdone
	VBROADCASTSD (DX)(AX*8), Y8
	VMULPD       (R10), Y8, Y2
	VMULPD       32(R10), Y8, Y3
	VADDPD       Y2, Y0, Y0
	VADDPD       Y3, Y1, Y1
	ADDQ         R9, R10
	INCQ         AX
	JMP          eightloop

eightdone:
	VSUBPD  Y15, Y0, Y0
	VSUBPD  Y15, Y1, Y1
	VMOVUPD Y0, (DI)(BX*8)
	VMOVUPD Y1, 32(DI)(BX*8)
	ADDQ    $8, BX
	JMP     groups

four:
	VXORPD Y0, Y0, Y0
	LEAQ   (SI)(BX*8), R10
	XORQ   AX, AX

fourloop:
	CMPQ         AX, CX
	JGE          fourdone
	VBROADCASTSD (DX)(AX*8), Y8
	VMULPD       (R10), Y8, Y2
	VADDPD       Y2, Y0, Y0
	ADDQ         R9, R10
	INCQ         AX
	JMP          fourloop

fourdone:
	VSUBPD  Y15, Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ    $4, BX
	JMP     groups

gdone:
	VZEROUPPER
	RET
