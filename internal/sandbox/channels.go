package sandbox

// OpenChannels lists the channels between two policies' plugins that the
// sandbox does not close at plan p; nil when it closes every one.
//
// A stub until the sandbox's own account of its channels lands: every
// channel is taken to be open below every layer (All).
func (p Plan) OpenChannels() []string {
	if p.Layers != All {
		return []string{"shared files, locks and SysV IPC (not every sandbox layer is on)"}
	}
	return nil
}
