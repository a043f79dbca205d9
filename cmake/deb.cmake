# SPDX-License-Identifier: GPL-2.0
# Install rules for the documentation Debian asks for, and the Debian package:
# `cpack -G DEB` in a build configured for /usr (scripts/build-deb.sh) makes
# pktpath_VERSION_amd64.deb. Its Depends come from dpkg-shlibdeps on the
# installed binary, so they follow what the build links, never a list kept
# by hand.

# Debian wants man pages, changelogs and documents over 4 kB compressed with
# gzip -9n (no name, no time stamp: the same bytes on every build). The JSON
# schema is the man page's list of fates and the --json reference.
set(PP_PKG ${CMAKE_BINARY_DIR}/pkg)
file(MAKE_DIRECTORY ${PP_PKG})
find_program(GZIP gzip REQUIRED)
foreach(doc docs/pktpath.8 packaging/changelog docs/json-schema.md)
	get_filename_component(name ${doc} NAME)
	add_custom_command(OUTPUT ${PP_PKG}/${name}.gz
		COMMAND ${GZIP} -9n -c ${CMAKE_SOURCE_DIR}/${doc} > ${PP_PKG}/${name}.gz
		DEPENDS ${CMAKE_SOURCE_DIR}/${doc}
		COMMENT "gzip ${doc}")
	list(APPEND PP_PKG_DOCS ${PP_PKG}/${name}.gz)
endforeach()
add_custom_target(pkg_docs ALL DEPENDS ${PP_PKG_DOCS})

install(FILES ${PP_PKG}/pktpath.8.gz DESTINATION share/man/man8)
install(FILES packaging/copyright ${PP_PKG}/changelog.gz ${PP_PKG}/json-schema.md.gz
	DESTINATION share/doc/pktpath)
# The node agent: a systemd unit, not enabled (no maintainer script enables
# it), its arguments in /etc/default, and Prometheus rules to start from.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	install(FILES packaging/pktpath.service DESTINATION /lib/systemd/system)
	install(FILES packaging/pktpath.default DESTINATION /etc/default RENAME pktpath)
	set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/packaging/conffiles)
endif()
install(FILES packaging/prometheus/pktpath-rules.yml DESTINATION share/pktpath/prometheus)
# What lintian reports and cannot be fixed, each with its reason; lintian
# reads it from the package, which installs in /usr (packaging/cpack-check.cmake).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	install(FILES packaging/lintian-overrides DESTINATION share/lintian/overrides
		RENAME pktpath)
endif()

# The changelog's newest entry must name the version being packaged.
file(STRINGS packaging/changelog PP_CHANGELOG_TOP LIMIT_COUNT 1)
string(REGEX REPLACE "^pktpath \\(([^)]*)\\).*" "\\1" PP_CHANGELOG_VERSION
	"${PP_CHANGELOG_TOP}")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pktpath)
set(CPACK_PACKAGE_VENDOR "pktpath maintainers")
set(CPACK_PACKAGE_CONTACT
	"pktpath maintainers <maintainers@users.noreply.a-seed-a4e960c2.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"show the path of network packets through the Linux kernel")
# The long description: CPack puts the summary above it and indents it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"For every packet that matches a filter in tcpdump's language, pktpath prints
the ordered list of kernel functions and tracepoints the packet went
through, with the network namespace, device, CPU and time of each step, and
how its life ended: consumed, or dropped with the kernel's drop reason.
.
It loads eBPF programs with libbpf: a TC classifier marks the matching
packets and kprobe, fentry or tracepoint programs follow them. It needs a
kernel with BTF and root (or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN).")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# --tc-script writes scripts that run tc.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS iproute2)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
# The package installs where the binary looks for kp_func.list (PKTPATH_DATADIR).
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/packaging/cpack-check.cmake)
set(CPACK_PP_CHANGELOG_VERSION ${PP_CHANGELOG_VERSION})
include(CPack)
