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
The closed-loop demo (``ros_ik_demo``, ``make demo``): real processes over DDS, a script.

:mod:`~ros_ik.demo.closed_loop` starts the processes and runs the script;
:mod:`~ros_ik.demo.segments` plans the targets, jogs and paths of the script for any arm;
:mod:`~ros_ik.demo.driver` is the demo's rclpy side (sends, records);
:mod:`~ros_ik.demo.results` judges and tabulates what happened; :mod:`~ros_ik.demo.plot`
draws it.

May import every layer of the package (it starts the other executables as processes, by
name, never by import of their modules).
"""
