// Package attest signs and checks a board's attestations: in-toto
// Statements v1 (github.com/in-toto/attestation/go/v1) in DSSE envelopes
// (github.com/secure-systems-lab/go-securesystemslib/dsse), signed with
// the board's ed25519 key.
//
// The key is one key for both of a board's signatures: the DSSE
// envelopes and the transparency log's checkpoints, which
// golang.org/x/mod/sumdb/note signs. It is stored in note's text form
// ("PRIVATE+KEY+NAME+HASH+BASE64", the public half "NAME+HASH+BASE64"),
// whose base64 is an algorithm byte (1: ed25519) and the key's 32 bytes.
package attest

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"golang.org/x/mod/sumdb/note"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// PayloadType is the DSSE payload type of an in-toto Statement.
const PayloadType = "application/vnd.in-toto+json"

// Key is a board's signing key.
type Key struct {
	Private ed25519.PrivateKey
	Public  ed25519.PublicKey
	Signer  note.Signer // signs checkpoints
	Text    string      // note's private key text
	Vkey    string      // note's verifier key text: what a board publishes
}

const algEd25519 = 1

// GenerateKey draws a fresh key named name (the board's name).
func GenerateKey(name string) (*Key, error) {
	skey, _, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	return ParseKey(skey)
}

// ParseKey reads a private key in note's text form.
func ParseKey(skey string) (*Key, error) {
	skey = strings.TrimSpace(skey)
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("key: not a note private key (PRIVATE+KEY+NAME+HASH+BASE64): %w", err)
	}
	fields := strings.SplitN(skey, "+", 5) // PRIVATE+KEY+NAME+HASH+BASE64, whose base64 may hold '+'
	raw, err := base64.StdEncoding.DecodeString(fields[len(fields)-1])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != algEd25519 {
		return nil, errors.New("key: not an ed25519 key")
	}
	priv := ed25519.NewKeyFromSeed(raw[1:])
	pub := priv.Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(signer.Name(), pub)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	return &Key{Private: priv, Public: pub, Signer: signer, Text: skey, Vkey: vkey}, nil
}

// PublicKey is a board's published key.
type PublicKey struct {
	Key      ed25519.PublicKey
	Verifier note.Verifier // checks checkpoints
	Vkey     string
}

// ParsePublicKey reads a verifier key in note's text form.
func ParsePublicKey(vkey string) (*PublicKey, error) {
	vkey = strings.TrimSpace(vkey)
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("public key: not a note verifier key (NAME+HASH+BASE64): %w", err)
	}
	fields := strings.SplitN(vkey, "+", 3) // NAME+HASH+BASE64, whose base64 may hold '+'
	raw, err := base64.StdEncoding.DecodeString(fields[len(fields)-1])
	if err != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != algEd25519 {
		return nil, errors.New("public key: not an ed25519 key")
	}
	return &PublicKey{Key: ed25519.PublicKey(raw[1:]), Verifier: v, Vkey: vkey}, nil
}

// signerVerifier adapts an ed25519 key to dsse's Signer and Verifier.
type signerVerifier struct {
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
	id   string
}

func (s signerVerifier) Sign(_ context.Context, data []byte) ([]byte, error) {
	return ed25519.Sign(s.priv, data), nil
}

func (s signerVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(s.pub, data, sig) {
		return errors.New("ed25519: the signature does not verify with the board's key")
	}
	return nil
}

func (s signerVerifier) KeyID() (string, error) { return s.id, nil }
func (s signerVerifier) Public() crypto.PublicKey {
	return s.pub
}

func keyID(pub ed25519.PublicKey) string {
	id, err := dsse.SHA256KeyID(pub)
	if err != nil {
		return ""
	}
	return id
}

// Subject is one artifact a statement is about, by its SHA-256.
type Subject struct {
	Name   string
	SHA256 string
}

// Sign makes the in-toto Statement v1 of subjects and predicate (a value
// that encodes to a JSON object) of type predicateType, and returns it in
// a DSSE envelope signed with k, as JSON.
func Sign(k *Key, subjects []Subject, predicateType string, predicate any) ([]byte, error) {
	pj, err := json.Marshal(predicate)
	if err != nil {
		return nil, fmt.Errorf("attestation: predicate: %w", err)
	}
	var ps structpb.Struct
	if err := protojson.Unmarshal(pj, &ps); err != nil {
		return nil, fmt.Errorf("attestation: predicate: %w", err)
	}
	st := &intoto.Statement{Type: intoto.StatementTypeUri, PredicateType: predicateType, Predicate: &ps}
	for _, s := range subjects {
		st.Subject = append(st.Subject, &intoto.ResourceDescriptor{Name: s.Name, Digest: map[string]string{"sha256": s.SHA256}})
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	payload, err := protojson.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	es, err := dsse.NewEnvelopeSigner(signerVerifier{priv: k.Private, pub: k.Public, id: keyID(k.Public)})
	if err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	env, err := es.SignPayload(context.Background(), PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("attestation: signing: %w", err)
	}
	out, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	return append(out, '\n'), nil
}

// Statement is a verified statement: its subjects by name, its predicate
// type and its predicate as JSON.
type Statement struct {
	Subjects      map[string]string // name -> sha256
	Order         []string          // the subjects' names, in order
	PredicateType string
	Predicate     json.RawMessage
}

// ErrSignature is wrapped by Verify's error when the envelope's signature
// does not verify.
var ErrSignature = errors.New("signature")

// Verify checks envelope's DSSE signature with pub and returns its
// statement. A signature that does not verify wraps ErrSignature.
func Verify(pub *PublicKey, envelope []byte) (*Statement, error) {
	var env dsse.Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("attestation: not a DSSE envelope: %w", err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("attestation: payload type %q, want %q", env.PayloadType, PayloadType)
	}
	ev, err := dsse.NewEnvelopeVerifier(signerVerifier{pub: pub.Key, id: keyID(pub.Key)})
	if err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	if _, err := ev.Verify(context.Background(), &env); err != nil {
		return nil, fmt.Errorf("%w: the envelope is not signed by the board's key %s: %v", ErrSignature, pub.Vkey, err)
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return nil, fmt.Errorf("attestation: payload: %w", err)
	}
	var st intoto.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("attestation: not an in-toto statement: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	out := &Statement{Subjects: map[string]string{}, PredicateType: st.GetPredicateType()}
	for _, s := range st.GetSubject() {
		out.Subjects[s.GetName()] = s.GetDigest()["sha256"]
		out.Order = append(out.Order, s.GetName())
	}
	if out.Predicate, err = protojson.Marshal(st.GetPredicate()); err != nil {
		return nil, fmt.Errorf("attestation: predicate: %w", err)
	}
	return out, nil
}
