# SPDX-License-Identifier: GPL-2.0
# For a tree whose CMakeLists.txt does not add tests/fuzz yet: scripts/fuzz.sh
# passes this file as CMAKE_PROJECT_INCLUDE, which reads tests/fuzz/CMakeLists.txt
# once the top-level CMakeLists.txt has been read (pp_core's targets exist by
# then). Deferred calls cannot add_subdirectory(), hence include().
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR}
	CALL include ${CMAKE_SOURCE_DIR}/tests/fuzz/CMakeLists.txt)
