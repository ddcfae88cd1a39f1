//go:build !unix

package relations

import "os"

// openFlags opens the cache read-only; platforms without O_NONBLOCK have no
// FIFOs that block an open in the same way.
const openFlags = os.O_RDONLY
