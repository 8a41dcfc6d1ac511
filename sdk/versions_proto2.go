//go:build regretbench_proto2 && !regretbench_proto1

package sdk

// servedVersions: built with the tag regretbench_proto2, a plugin serves
// protocol versions 1 and 2 only, as one built before protocol 3 would.
var servedVersions = []int{1, 2}
