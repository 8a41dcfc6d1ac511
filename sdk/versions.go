//go:build !regretbench_proto1

package sdk

// servedVersions are the protocol versions a plugin built on this SDK
// serves. Building with the tag regretbench_proto1 serves only version 1,
// as a plugin built before protocol 2 would (tests use it).
var servedVersions = []int{1, 2}
