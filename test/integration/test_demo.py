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

"""The closed-loop demo, run as a user runs it (console script, real processes)."""

import os
import signal
import subprocess
import sys

import pytest
from ros_ik.demo.closed_loop import JTC_TOLERANCE
from ros_ik.tools.node_processes import executable


@pytest.mark.parametrize('arm, segments', [('ur5', 12), ('panda', 10), ('so101', 8),
                                           ('planar_2link', 8)])
def test_demo_reaches_reachable_targets_within_speed_limits(tmp_path, ros_domain_id, arm,
                                                            segments):
    """
    Run the demo on every bundled arm: its table, no fault of the strict arm, the plot.

    The full-pose arms add a table: a jog down onto it stops, a target under it is refused
    naming the table; the UR5 (the default) adds the jog through a singular pose; the
    5-joint arm runs on its position axes, the planar arm on x and y. Each sends a pose in
    ``world`` and one in ``camera`` (through TF), reached; each servos out of the stretch
    near a singular configuration to pose B.
    """
    completed = subprocess.run(
        [executable('ros_ik_demo'), '--headless', '--arm', arm, '--output', str(tmp_path)],
        capture_output=True, text=True, timeout=240, env=dict(os.environ))
    output = completed.stdout
    sys.stdout.write(output)
    assert completed.returncode == 0, output + completed.stderr
    rows = {line[:28].strip(): line[28:].split() for line in output.splitlines()
            if line[:28].strip() in ('reach pose A', 'pose W sent in world',
                                     'pose A sent in camera', 'back to pose A',
                                     'stretch to near-singular',
                                     'leave it for pose B', 'unreachable (2x reach)',
                                     'position-only goal', 'to the jog start',
                                     'jog through singular', 'jog onto the table',
                                     'target under the table')}
    assert len(rows) == segments
    assert rows['pose W sent in world'][:3] == ['world', 'reach', 'reached']
    assert rows['pose A sent in camera'][:3] == ['camera', 'reach', 'reached']
    for label, columns in rows.items():
        _, expect, result, _, _, _, peak_speed, peak_acceleration, _, _ = columns
        assert result == {'reach': 'reached', 'stop': 'stopped', 'refuse': 'refused'}.get(
            expect, 'unreachable'), label
        assert float(peak_speed) <= 0.5 + 1e-9, label  # velocity_scale of the demo
        # of JTC's spline of the horizons: its quintic overshoots by up to 4 % (Panda)
        assert float(peak_acceleration) <= 1.0 + JTC_TOLERANCE, label
    assert float(rows['stretch to near-singular'][-1]) > 0.0  # damping engaged
    if 'target under the table' in rows:
        assert 'refused ("target refused: the motion would bring ' in output
        assert ' into table; ' in output
    assert os.path.getsize(tmp_path / f'ros_ik_demo_{arm}.png') > 10000
    assert 'simulated arm faults (commands beyond its velocity or acceleration limits): 0' in (
        output)
    assert 'demo succeeded' in output


def test_ctrl_c_mid_demo_exits_zero_without_a_traceback_anywhere(tmp_path, ros_domain_id):
    """Interrupt the demo while the arm moves: exit 0, no traceback in it or its nodes."""
    demo = subprocess.Popen(
        [executable('ros_ik_demo'), '--headless', '--output', str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    try:
        output = ''
        while '[2/' not in output:  # moving toward the second target
            character = demo.stdout.read(1)
            assert character, output
            output += character
        demo.send_signal(signal.SIGINT)
        output += demo.communicate(timeout=30)[0]
    finally:
        demo.kill()
    assert demo.returncode == 0, output
    assert 'Traceback' not in output and 'demo interrupted' in output, output
    logs = output.split('logs in ')[1].split(')')[0]
    for log in ('sim_arm.log', 'ik_node.log'):
        with open(os.path.join(logs, log), encoding='utf-8') as file:
            assert 'Traceback' not in file.read()
