package cli

// limitDefaults gives o the --limit-* flags' defaults, as every command
// that starts plugins has them unless told otherwise.
func limitDefaults(o sandboxOptions) sandboxOptions {
	o.limitMemory, o.limitTasks, o.limitFiles, o.limitDisk, o.limitDiskFiles, o.limitBy = "4GiB", "256", "1024", "1GiB", "10000", "auto"
	return o
}
