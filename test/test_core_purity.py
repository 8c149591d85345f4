"""The numerical core must import without rclpy (reusable outside ROS)."""

import os
import subprocess
import sys

import pytest

CORE_MODULES = ('transforms', 'errors', 'chain', 'urdf_loader', 'kinematics',
                'manipulability', 'damped_least_squares', 'joint_limits', 'solver',
                'bundled_arms', 'arm_selection', 'report', 'servo', 'target_input',
                'joint_state_input', 'throttled_log', 'arm_model', 'launch_support',
                'goal_modes', 'demo_plan', 'symmetric_eigen', 'ik_attempt', 'kernel_warm_up')
REPOSITORY_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize('module', CORE_MODULES)
def test_core_module_does_not_load_rclpy(module):
    """Import a core module in a fresh interpreter and check rclpy was never imported."""
    code = (f'import sys, ros_ik.{module}; '
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('rclpy', 'rosidl_runtime_py', 'std_msgs', 'geometry_msgs')); "
            'print(loaded); sys.exit(1 if loaded else 0)')
    completed = subprocess.run([sys.executable, '-c', code], cwd=REPOSITORY_ROOT,
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_core_sources_never_mention_rclpy():
    """Check the core sources for any rclpy import, also a lazy one."""
    for module in CORE_MODULES:
        with open(os.path.join(REPOSITORY_ROOT, 'ros_ik', f'{module}.py'), encoding='utf-8') as f:
            assert 'rclpy' not in f.read(), module
