# SPDX-License-Identifier: GPL-2.0
# Run by cpack before it packages: refuse a package that would not work or
# would not match its changelog.
if(NOT CPACK_PACKAGING_INSTALL_PREFIX STREQUAL "/usr")
	message(FATAL_ERROR "the .deb needs a build configured with "
		"-DCMAKE_INSTALL_PREFIX=/usr (scripts/build-deb.sh does that): pktpath "
		"looks for kp_func.list under the prefix it was built with, here "
		"${CPACK_PACKAGING_INSTALL_PREFIX}")
endif()
if(NOT CPACK_PP_CHANGELOG_VERSION STREQUAL CPACK_PACKAGE_VERSION)
	message(FATAL_ERROR "packaging/changelog's newest entry is "
		"${CPACK_PP_CHANGELOG_VERSION}, the project's version "
		"${CPACK_PACKAGE_VERSION}: add an entry")
endif()
