package linux

import (
	"fmt"
	"strconv"
	"strings"
)

// mmStat is a zram device's /sys/block/zramN/mm_stat (Documentation/admin-guide/
// blockdev/zram.rst), in bytes except the page counts.
type mmStat struct {
	OrigDataSize   int64 // data stored, uncompressed
	ComprDataSize  int64 // data stored, compressed
	MemUsedTotal   int64 // memory the device really holds, allocator overhead included
	MemLimit       int64 // 0: no limit
	MemUsedMax     int64 // high-water mark of MemUsedTotal
	SamePages      int64 // pages of one repeated value (zeros), held without memory
	PagesCompacted int64
	HugePages      int64 // pages stored uncompressed
}

// parseMMStat reads the one line of mm_stat. Kernels add columns over time,
// so at least the first seven must be there and later ones are optional.
func parseMMStat(s string) (mmStat, error) {
	f := strings.Fields(s)
	if len(f) < 7 {
		return mmStat{}, fmt.Errorf("mm_stat %q: want at least 7 numbers", strings.TrimSpace(s))
	}
	v := make([]int64, 8)
	for i := 0; i < len(f) && i < len(v); i++ {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return mmStat{}, fmt.Errorf("mm_stat %q: column %d is not a count", strings.TrimSpace(s), i+1)
		}
		v[i] = n
	}
	return mmStat{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}, nil
}
