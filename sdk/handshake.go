package sdk

import plugin "github.com/hashicorp/go-plugin"

// ProtocolVersion is the newest version of the regretbench policy protocol
// spoken by this SDK: the go-plugin application protocol version. The host
// offers every version from MinProtocolVersion to ProtocolVersion and a Go
// plugin serves them all; go-plugin picks the highest both speak. Version 2
// adds delayed feedback (policy.proto).
const ProtocolVersion = 2

// MinProtocolVersion is the oldest protocol version bench still speaks:
// version 1 plugins run every scenario without `feedback:`.
const MinProtocolVersion = 1

// DelayedFeedbackVersion is the first protocol version that carries
// delayed feedback.
const DelayedFeedbackVersion = 2

// Handshake is the go-plugin handshake shared by the host and every plugin:
// the single definition of the magic cookie and the protocol version.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "REGRETBENCH_PLUGIN",
	MagicCookieValue: "7f3c1e9a-remax-bandit-policy",
}

// pluginName is the name under which the policy service is dispensed.
const pluginName = "policy"

// SDKVersion identifies this SDK in Describe responses.
const SDKVersion = "regretbench-go/0.1.0"
