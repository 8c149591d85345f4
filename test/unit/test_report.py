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

"""The command-line report that `make demo` ran before the closed-loop demo existed."""

from ros_ik.tools.report import main


def test_planar_report_shows_worked_example(capsys):
    """Check the planar arm's report: chain, limits and w = 3 at theta2 = 90 deg."""
    assert main(['--arm', 'planar_2link']) == 0
    output = capsys.readouterr().out
    assert 'chain: base_link -> tool0, 2 moving joints' in output
    assert ('elbow                 revolute       -3.1416    3.1416    2.0000    1.5708'
            in output)
    assert 'manipulability w       : 3\n' in output
    assert 'tip position [m]       : 2.000000 1.500000 0.000000' in output


def test_bad_urdf_exits_non_zero_with_reason(tmp_path, capsys):
    """Check that a URDF naming an unknown tip link gives exit 1 and the reason."""
    urdf = tmp_path / 'arm.urdf'
    urdf.write_text('<robot name="r"><link name="a"/></robot>')
    assert main(['--urdf', str(urdf), '--base-link', 'a', '--tip-link', 'b']) == 1
    assert 'tip link "b" is not in the URDF of robot "r" (links: a)' in capsys.readouterr().err
