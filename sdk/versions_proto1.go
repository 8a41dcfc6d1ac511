//go:build regretbench_proto1

package sdk

// servedVersions: built with the tag regretbench_proto1, a plugin serves
// only protocol version 1, as one built before protocol 2 would.
var servedVersions = []int{1}
