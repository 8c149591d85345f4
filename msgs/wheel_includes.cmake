# For interface packages built against the ROS 2 wheels from PyPI (msgs/build_interfaces.sh):
# the wheels' exported targets name include folders of the machine they were built on (its
# Python's and numpy's headers); drop those that do not exist here (rosidl_generator_py adds
# this Python's and numpy's headers to the targets it builds). Included after the
# find_package calls; in a ROS install every folder exists and nothing changes.
get_directory_property(imported_targets IMPORTED_TARGETS)
foreach(target ${imported_targets})
  get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(includes)
    set(existing "")
    foreach(folder ${includes})
      if(EXISTS "${folder}" OR folder MATCHES "^\\$<")
        list(APPEND existing "${folder}")
      endif()
    endforeach()
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${existing}")
  endif()
endforeach()
