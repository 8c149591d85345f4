# Copyright 2026 ros_ik developers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The browser view (``ros_ik_web``): a ROS node serving a web page of the arm (viser).

:mod:`~ros_ik.web.view_node` is the node (joint_states in; the page's target, jogs and mode
out; the IK node's markers and status drawn); :mod:`~ros_ik.web.page` the viser page;
:mod:`~ros_ik.web.robot_visuals` the URDF's visuals; :mod:`~ros_ik.web.markers` RViz markers
drawn in the page. It talks to ``ik_node`` only through its topics and parameters.

May import: rclpy, ROS message packages, viser, :mod:`ros_ik.node` and the layers below it.
Never :mod:`ros_ik.sim`, :mod:`ros_ik.tools` or :mod:`ros_ik.demo`.
"""
