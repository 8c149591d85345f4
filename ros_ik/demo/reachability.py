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
The demo's targets asked of ``~/solve_ik`` before the arm moves: a reachability table.

One request per kind of target (full poses, then position-only goals), seeded at the
measured joints, up to ``MAX_SOLUTIONS`` distinct solutions each, collision-checked where
the node checks collisions (its start-up scene: the table segment's scene comes later).
Per target: the solutions found, the joint distance (rad, max over joints) of the nearest
from the arm's joints, and the answer; ``expected`` says whether a reachable target was
solved and the unreachable one refused (a target the node refuses for the table it stands
in has solutions here: the table is not in the scene yet).
"""

import time
from typing import List, Optional, Sequence

from geometry_msgs.msg import PoseStamped
import numpy as np
from ros_ik.demo.segments import Segment
from ros_ik.node.messages import pose_message
from ros_ik.tools.node_processes import RosPeer
from ros_ik_msgs.msg import PoseSolutions
from ros_ik_msgs.srv import SolveIk
from sensor_msgs.msg import JointState

MAX_SOLUTIONS = 8
SERVICE_TIMEOUT = 10.0  # s: to find the service, and for each request
NO_COLLISION_MODEL = 'avoid_collisions needs a collision model'


def reachability_table(peer: RosPeer, segments: Sequence[Segment], base_link: str,
                       q_now: np.ndarray) -> str:
    """Return the table of the pose targets of ``segments`` (jogs and paths left out)."""
    client = peer.node.create_client(SolveIk, 'ros_ik/solve_ik')
    try:
        if not client.wait_for_service(timeout_sec=SERVICE_TIMEOUT):
            return 'reachability: ~/solve_ik did not come up'
        targets = [segment for segment in segments
                   if segment.jog_velocity is None and not segment.path]
        lines = [f'reachability of the targets through ~/solve_ik (max_solutions '
                 f'{MAX_SOLUTIONS}; nearest: max joint distance from the arm, rad)',
                 f'{"target":<28}{"solutions":>10}{"nearest":>9}{"expected":>10}  answer']
        for position_only in (False, True):
            kind = [segment for segment in targets if segment.position_only == position_only]
            if not kind:
                continue
            response = _ask(peer, client, kind, base_link, position_only)
            if response is None or not response.success:
                lines.append(f'~/solve_ik gave no answer: '
                             f'{response.message if response else "timed out"}')
                continue
            for segment, result in zip(kind, response.results):
                lines.append(_row(segment, result, q_now))
        return '\n'.join(lines)
    finally:
        peer.node.destroy_client(client)


def wait_for_node_frames(peer: RosPeer, frames: Sequence[str], seed: JointState,
                         timeout: float) -> bool:
    """
    Wait until the IK node transforms a pose in each of ``frames``; return whether in time.

    Asked of ``~/solve_ik`` (one pose at each frame's origin, seeded at ``seed``, every
    0.1 s), whose frames are the node's TF buffer, the one its targets go through: the
    demo process hearing the static frames does not mean the node has (each publisher is
    a process the node discovers on its own; in CI the SO-101's "pose W sent in world" was
    refused, "frame base_link does not exist in TF", after the demo had heard both
    frames). Only a ``FRAME_ERROR`` answer means not yet: the poses need not be reachable.
    """
    client = peer.node.create_client(SolveIk, 'ros_ik/solve_ik')
    deadline = time.monotonic() + timeout
    try:
        if not client.wait_for_service(timeout_sec=timeout):
            return False
        poses = [PoseStamped() for _ in frames]
        for pose, frame in zip(poses, frames):
            pose.header.frame_id = frame
            pose.pose.orientation.w = 1.0
        request = SolveIk.Request(poses=poses, seed=seed, timeout=0.05)
        while time.monotonic() < deadline:
            response = _call(peer, client, request)
            if response is not None and response.success and all(
                    result.error_code != PoseSolutions.FRAME_ERROR
                    for result in response.results):
                return True
            peer.spin_for(0.1)
        return False
    finally:
        peer.node.destroy_client(client)


def _ask(peer: RosPeer, client, segments: List[Segment], base_link: str,
         position_only: bool) -> Optional[SolveIk.Response]:
    """Send one request for ``segments``' targets; collisions checked where the node can."""
    poses = [PoseStamped(pose=pose_message(segment.T_base_target)) for segment in segments]
    for pose in poses:
        pose.header.frame_id = base_link
    request = SolveIk.Request(poses=poses, max_solutions=MAX_SOLUTIONS, timeout=5.0,
                              position_only=position_only, avoid_collisions=True)
    response = _call(peer, client, request)
    if response is not None and not response.success and NO_COLLISION_MODEL in \
            response.message:
        request.avoid_collisions = False
        response = _call(peer, client, request)
    return response


def _call(peer: RosPeer, client, request: SolveIk.Request) -> Optional[SolveIk.Response]:
    """Call the service; return the response (None: none in time)."""
    future = client.call_async(request)
    if not peer.spin_until(future.done, SERVICE_TIMEOUT):
        return None
    return future.result()


def _row(segment: Segment, result, q_now: np.ndarray) -> str:
    """Return one target's line of the table."""
    nearest = (f'{np.abs(np.array(result.solutions[0].position) - q_now).max():.2f}'
               if result.solutions else '-')
    expected = 'yes' if result.success == (segment.reachable or segment.refused) else 'NO'
    answer = 'solved' if result.success else result.message
    return (f'{segment.label:<28}{len(result.solutions):>10}{nearest:>9}{expected:>10}  '
            f'{answer}')
