//go:build !regretbench_proto1 && !regretbench_proto2

package sdk

// servedVersions are the protocol versions a plugin built on this SDK
// serves. Building with the tag regretbench_proto1 serves only version 1,
// as a plugin built before protocol 2 would, and regretbench_proto2
// versions 1 and 2, as one built before protocol 3 would (tests use
// them).
var servedVersions = []int{1, 2, 3}
