// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A dma-buf for the verbs tools: a dumb buffer of vgem (the virtual GEM
// driver: shmem pages behind a DRM node), exported with PRIME and mmap()ed
// so the CPU fills and checks what RDMA moves in and out of it.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace mrc_tool {

// The few DRM uAPI pieces used here (include/uapi/drm/drm.h, drm_mode.h;
// stable ABI), so the tools build without the DRM headers installed.
struct DrmVersion {
	int major, minor, patch;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct DrmCreateDumb {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct DrmDestroyDumb {
	uint32_t handle;
};
struct DrmPrimeHandle {
	uint32_t handle, flags;
	int32_t fd;
};
constexpr unsigned long kDrmVersion = _IOWR('d', 0x00, DrmVersion);
constexpr unsigned long kDrmPrimeToFd = _IOWR('d', 0x2d, DrmPrimeHandle);
constexpr unsigned long kDrmCreateDumb = _IOWR('d', 0xB2, DrmCreateDumb);
constexpr unsigned long kDrmDestroyDumb = _IOWR('d', 0xB4, DrmDestroyDumb);

struct VgemBuf {
	int drm = -1;			// the vgem node
	uint32_t handle = 0;		// the dumb buffer's GEM handle
	int fd = -1;			// its dma-buf
	uint8_t *map = nullptr;		// the CPU's view of it
	size_t size = 0;
};

// /dev/dri/card* of vgem: dumb buffers need the primary node (render
// nodes refuse CREATE_DUMB); -1 if none.
inline int vgem_open()
{
	DIR *d = opendir("/dev/dri");
	int found = -1;

	for (dirent *de; d && found < 0 && (de = readdir(d));) {
		if (strncmp(de->d_name, "card", 4))
			continue;
		std::string path = std::string("/dev/dri/") + de->d_name;
		int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
		char name[32] = {};
		DrmVersion v = {};

		if (fd < 0)
			continue;
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (!ioctl(fd, kDrmVersion, &v) && !strcmp(name, "vgem"))
			found = fd;
		else
			close(fd);
	}
	if (d)
		closedir(d);
	return found;
}

// A buffer of @size bytes (a multiple of 4096); nullptr, or what failed.
inline const char *vgem_buf_create(VgemBuf &b, size_t size)
{
	DrmCreateDumb c = {};
	DrmPrimeHandle p = {};
	void *m;

	b.drm = vgem_open();
	if (b.drm < 0)
		return "no vgem DRM node in /dev/dri (modprobe vgem)";
	c.width = 1024;		// 4096-byte rows of 32-bit pixels
	c.height = static_cast<uint32_t>(size / 4096);
	c.bpp = 32;
	if (ioctl(b.drm, kDrmCreateDumb, &c) || c.size < size)
		return "vgem CREATE_DUMB";
	b.handle = c.handle;
	p.handle = c.handle;
	p.flags = O_RDWR | O_CLOEXEC;
	if (ioctl(b.drm, kDrmPrimeToFd, &p))
		return "PRIME_HANDLE_TO_FD";
	b.fd = p.fd;
	m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	if (m == MAP_FAILED)
		return "mmap of the dma-buf";
	b.map = static_cast<uint8_t *>(m);
	b.size = size;
	return nullptr;
}

// Every handle of the process on the buffer dropped; 0 or the errno of
// destroying the GEM handle.
inline int vgem_buf_release(VgemBuf &b)
{
	DrmDestroyDumb d = { b.handle };
	int err;

	munmap(b.map, b.size);
	close(b.fd);
	err = ioctl(b.drm, kDrmDestroyDumb, &d) ? errno : 0;
	close(b.drm);
	b = VgemBuf();
	return err;
}

}  // namespace mrc_tool
