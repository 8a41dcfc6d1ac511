package sdk

import plugin "github.com/hashicorp/go-plugin"

// ProtocolVersion is the version of the regretbench policy protocol spoken
// by this SDK. It is the go-plugin application protocol version.
const ProtocolVersion = 1

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
