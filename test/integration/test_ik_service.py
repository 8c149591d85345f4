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
``~/solve_ik`` over DDS while the node servos: ik_node and the strict sim_arm as processes.

The example UR5 (meshes, SRDF) on a floor: the service's solutions are checked by forward
kinematics and pairwise distinctness, a pose below the floor is refused naming the floor,
bad poses fail alone, bad requests are refused whole, and the servo reaches its target
meanwhile without a fault.
"""

import math

from geometry_msgs.msg import PoseStamped
import numpy as np
from ros_ik.kinematics.ik_query import DISTINCT_TOLERANCE
from ros_ik.kinematics.transforms import pose_error
from ros_ik.node.messages import pose_message
from ros_ik_msgs.msg import PoseSolutions
from ros_ik_msgs.srv import SolveIk
from sensor_msgs.msg import JointState
from test_collision_loop import below_floor_target, CollisionLoop, FREE_GOAL, START

TIMEOUT = 60.0


def call(peer, request: SolveIk.Request) -> SolveIk.Response:
    """Call ``/ros_ik/solve_ik``; return the response."""
    client = peer.node.create_client(SolveIk, '/ros_ik/solve_ik')
    try:
        assert client.wait_for_service(timeout_sec=TIMEOUT)
        future = client.call_async(request)
        assert peer.spin_until(future.done, TIMEOUT)
        return future.result()
    finally:
        peer.node.destroy_client(client)


def stamped(T: np.ndarray, frame: str) -> PoseStamped:
    """Return a PoseStamped of the 4x4 ``T`` in ``frame``."""
    message = PoseStamped(pose=pose_message(T))
    message.header.frame_id = frame
    return message


def test_solutions_are_checked_distinct_and_collision_free_while_the_node_servos(
        peer, processes, tmp_path):
    """Check batches over DDS during a servo motion: FK, distinct, refusals named."""
    loop = CollisionLoop(peer, processes, tmp_path, ik={'mode': 'servo'})
    try:
        base = loop.chain.base_link
        rng = np.random.default_rng(4)
        configurations = START + rng.uniform(-0.6, 0.6, (20, 6))
        T_goal = loop.kinematics.tip_pose(FREE_GOAL)
        loop.send(T_goal)
        request = SolveIk.Request(
            poses=[stamped(loop.kinematics.tip_pose(q), base) for q in configurations],
            max_solutions=8, timeout=10.0)
        response = call(peer, request)
        assert response.success, response.message
        assert len(response.results) == 20
        counts = []
        for q_pose, result in zip(configurations, response.results):
            assert result.success and result.error_code == PoseSolutions.SUCCEEDED
            assert 1 <= len(result.solutions) <= 8
            assert result.position_error < 1e-5 and result.orientation_error < 1e-4
            counts.append(len(result.solutions))
            assert list(result.solutions[0].name) == list(loop.chain.joint_names)
            solutions = np.array([solution.position for solution in result.solutions])
            T_pose = loop.kinematics.tip_pose(q_pose)
            for q in solutions:
                e_p, e_o = pose_error(T_pose, loop.kinematics.tip_pose(q))
                assert np.linalg.norm(e_p) < 1e-5 and np.linalg.norm(e_o) < 1e-4
            for i in range(len(solutions)):
                for j in range(i):
                    turns = np.remainder(solutions[i] - solutions[j] + math.pi,
                                         2 * math.pi) - math.pi
                    assert np.abs(turns).max() > DISTINCT_TOLERANCE
        assert max(counts) >= 4  # a UR5 pose has up to 8 branches

        bad = stamped(T_goal, base)
        bad.pose.position.x = math.nan
        response = call(peer, SolveIk.Request(poses=[
            stamped(below_floor_target(loop.kinematics), base), bad,
            stamped(T_goal, 'nowhere'), stamped(T_goal, base)], avoid_collisions=True))
        assert response.success, response.message
        codes = [result.error_code for result in response.results]
        assert codes == [PoseSolutions.IN_COLLISION, PoseSolutions.INVALID_POSE,
                         PoseSolutions.FRAME_ERROR, PoseSolutions.SUCCEEDED], \
            [result.message for result in response.results]
        assert 'floor' in response.results[0].message
        assert 'nowhere' in response.results[2].message

        for refused, why in ((SolveIk.Request(), 'no poses'),
                             (SolveIk.Request(poses=[bad], timeout=-1.0), 'timeout'),
                             (SolveIk.Request(poses=[bad], seed=JointState(
                                 name=['shoulder_pan_joint'], position=[0.0])), 'lacks')):
            response = call(peer, refused)
            assert not response.success and why in response.message
        assert peer.spin_until(lambda: loop.reached(T_goal), TIMEOUT), loop.status.message
        # At rest: a 200-pose request (all solutions) leaves every command where it was.
        assert peer.spin_until(lambda: len(loop.commands) > 20 and all(
            np.array_equal(q, loop.commands[-1]) for q in loop.commands[-20:]), TIMEOUT)
        heard = len(loop.commands)
        # Its timeout leaves a busy machine time: this checks the commands, not the speed.
        response = call(peer, SolveIk.Request(poses=request.poses * 10, max_solutions=8,
                                              timeout=TIMEOUT))
        assert response.success and all(result.success for result in response.results)
        assert peer.spin_until(lambda: len(loop.commands) > heard + 50, TIMEOUT)
        moved = [float(np.abs(q - loop.commands[heard - 1]).max())
                 for q in loop.commands[heard:]]
        assert max(moved) == 0.0, (moved, loop.status.message)
        loop.assert_no_fault()
    finally:
        loop.close()
