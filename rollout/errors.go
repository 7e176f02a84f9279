package rollout

import "errors"

// ErrInvalidConfig is wrapped by every error [New] and [Flags.SetConfig] return for a
// Config that contradicts itself (empty service, percent outside [0, 100], empty
// region name, duplicate service and prefix). The caller should fix the configuration; on SetConfig the
// previous configuration stays in force.
var ErrInvalidConfig = errors.New("invalid config")
