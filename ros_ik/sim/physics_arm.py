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
A physics-backed simulated arm: the IK node's commands drive a MuJoCo model of the URDF.

Commands, strict command faults and joint_states work as in
:class:`ros_ik.sim.commanded_arm.CommandedArm`. Every ``1 / rate`` s (the drives'
controller period, 500 Hz by default) the node takes the reference (the trajectory
controller's setpoint or the extrapolated command) and steps MuJoCo by the ``timestep`` s
steps due in wall-clock time (1 kHz by default; at most ``MAX_CATCH_UP`` s at once: a
longer stall of this process, on a loaded machine, is time the simulation skips, reported
as the real time factor; the arm comes out of it on the reference, as if its drives had
followed it meanwhile, not left behind by the skipped time, which a real arm would
not have lost). The drives are position loops with velocity feed-forward and, by default,
gravity compensation, clamped to the URDF's effort limits
(:mod:`ros_ik.physics.mujoco_arm`); their gains come from ``gains_file`` or are derived
from the joint inertias at the start pose (:mod:`ros_ik.physics.servo_gains`).

joint_states carry positions, velocities and the drives' efforts (N m or N). On
``/diagnostics`` every ``diagnostics_period`` s, status ``physics_arm: drives``: the peak
tracking error per joint (rad or m) and at the tool (m), the peak effort / limit per joint,
the saturated joints and the real-time factor; ``physics_arm: contacts``: contact events
(a pair starting to touch) and the peak normal force (N) per pair. A contact and a saturated
drive are logged (WARN, rate-limited). The collision scene (``collision_scene_file``, then
the ``collision_scene`` topic: the IK node's scene YAML) becomes static geoms; objects in
a TF frame other than the base are left out, with a warning.

With ``strict`` it also faults, as a robot's safety stops do, on a contact force above
``max_contact_force`` N or a joint tracking error above ``max_tracking_error`` rad (m).
"""

import math
import sys
import time
from typing import List, Optional, Tuple

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
import numpy as np
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_ik.collision.allowed_pairs import SrdfError
from ros_ik.collision.collision_setup import build_collision_model, with_scene
from ros_ik.collision.scene import load_scene_file, parse_scene, SceneError, SceneObject
from ros_ik.collision.shapes import GeometryError
from ros_ik.control.motion_limit_sources import JointLimitsError
from ros_ik.kinematics.chain_kinematics import ChainKinematics
from ros_ik.kinematics.urdf_errors import UrdfError
from ros_ik.kinematics.urdf_loader import parse_robot
from ros_ik.node.chain_parameters import robot_description_text
from ros_ik.node.mesh_packages import package_directories
from ros_ik.node.messages import diagnostic_status, format_value
from ros_ik.node.run import run_node
from ros_ik.physics.arm_simulation import ArmSimulation
from ros_ik.physics.drive_monitor import DriveMonitor, Peaks
from ros_ik.physics.mujoco_arm import (ArmModel, build_arm_model, joint_drives,
                                       joint_inertia, PhysicsOptions)
from ros_ik.physics.servo_gains import (derived_gains, gains_with_file, GainsError,
                                        parse_gains, ServoGains)
from ros_ik.physics.wall_clock_steps import paired_reading, WallClockSteps
from ros_ik.sim.commanded_arm import CommandedArm
from std_msgs.msg import String

SCENE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
DIAGNOSTICS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
MAX_CATCH_UP = 0.05  # s of simulation at most per loop period
STARTUP_ERRORS = (UrdfError, JointLimitsError, GeometryError, SrdfError, SceneError,
                  GainsError, ValueError, OSError)


def _range(low: float, high: float) -> List[FloatingPointRange]:
    return [FloatingPointRange(from_value=low, to_value=high)]


# name: (default, description, range or None, read-only)
PHYSICS_PARAMETERS = {
    'timestep': (0.001, 'MuJoCo step [s] (1 kHz by default)', _range(1e-4, 0.01), True),
    'gravity': ([0.0, 0.0, -9.81], 'gravity in the base frame [m/s^2]', None, True),
    'gravity_compensation': (True, 'the drives hold the arm against gravity (false: it '
                             'sags by tau_g / kp)', None, True),
    'density': (1000.0, 'density of links without an <inertial> [kg/m^3]',
                _range(1.0, 20000.0), True),
    'gains_file': ('', 'position-loop gains, ros2_control format (gains: joint: {p, d}); '
                   'joints not in it get derived gains', None, True),
    'bandwidth': (8.0, 'derived gains: natural frequency of each joint loop [Hz]',
                  _range(0.5, 100.0), True),
    'damping_ratio': (1.0, 'derived gains: damping ratio', _range(0.1, 5.0), True),
    'robot_description_semantic_file': ('', 'SRDF: link pairs that never touch (none: '
                                        'chosen as the IK node does)', None, True),
    'mesh_search_path': ('', 'folders of packages for package:// meshes (":"-separated)',
                         None, True),
    'collision_scene_file': ('', 'scene YAML at start-up (then the collision_scene topic)',
                             None, True),
    'max_contact_force': (20.0, 'strict: fault above this contact force [N]',
                          _range(0.0, 1e6), False),
    'max_tracking_error': (0.05, 'strict: fault above this joint tracking error [rad or m]',
                           _range(0.0, 10.0), False),
    'diagnostics_period': (0.1, 'period of the drives and contacts diagnostics [s]',
                           _range(0.01, 10.0), True),
}


class PhysicsArm(CommandedArm):
    """Drive a MuJoCo model of the arm with the commands; publish what the arm does."""

    DEFAULT_RATE = 500.0
    DEFAULT_STATE_RATE = 500.0

    def __init__(self, **kwargs) -> None:
        """Build the MuJoCo arm at the initial positions, then start the loop."""
        super().__init__('physics_arm', **kwargs)
        for name, (default, description, value_range, read_only) in (
                PHYSICS_PARAMETERS.items()):
            descriptor = ParameterDescriptor(description=description, read_only=read_only)
            if value_range:
                descriptor.floating_point_range = value_range
            self.declare_parameter(name, default, descriptor)
        value = self._value
        urdf_text = robot_description_text(self)
        self._robot = parse_robot(urdf_text)
        self._kinematics = ChainKinematics(self.chain)
        self._drives = joint_drives(self._robot, self.chain)
        self._options = PhysicsOptions(value('timestep'), tuple(value('gravity')),
                                       value('gravity_compensation'), value('density'))
        srdf_path = value('robot_description_semantic_file')
        srdf_text = open(srdf_path, encoding='utf-8').read() if srdf_path else ''
        scene = self._base_frame_objects(load_scene_file(value('collision_scene_file')))
        self._collision, note = build_collision_model(
            urdf_text, self._kinematics, srdf_text, scene,
            package_directories(value('mesh_search_path')))
        arm = build_arm_model(self._robot, self._collision, self._drives, self._options)
        gains = self._gains(arm)
        self._simulation = ArmSimulation(arm, gains, self._drives.effort, self.q)
        self._monitor = DriveMonitor(self.chain.n_joints)
        self._wall_steps = WallClockSteps(self._options.timestep, MAX_CATCH_UP,
                                          time.monotonic())
        # (q, v) of the reference where the simulation stands (None: not stepped yet)
        self._reference: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self._report_started = (self._wall_steps.started, 0.0)
        self._diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics',
                                                  DIAGNOSTICS_QOS)
        self.create_subscription(String, 'collision_scene', self._on_scene, SCENE_QOS)
        self.create_timer(value('diagnostics_period'), self._publish_diagnostics)
        log = self.get_logger()
        log.info(f'MuJoCo {arm.model.nbody - 1} bodies, {arm.model.ngeom} geoms, '
                 f'{arm.model.npair} contact pairs; collision pairs: {note}')
        log.info('gains (kp, kd): ' + ', '.join(
            f'{name} ({kp:.4g}, {kd:.4g})'
            for name, kp, kd in zip(self.chain.joint_names, gains.kp, gains.kd)))
        if arm.links_without_inertial:
            log.warning('links without <inertial>: ' + ', '.join(arm.links_without_inertial)
                        + f': their mass is their collision shapes at '
                        f'{self._options.density:g} kg/m^3')
        unlimited = [name for name, effort in zip(self.chain.joint_names, self._drives.effort)
                     if not math.isfinite(effort)]
        if unlimited:
            log.warning('joints without an effort limit (unlimited drives): '
                        + ', '.join(unlimited))

    def _value(self, name: str):
        return self.get_parameter(name).value

    def _gains(self, arm: ArmModel) -> ServoGains:
        """Return the gains file's gains, derived ones for the joints it leaves out."""
        derived = derived_gains(joint_inertia(arm, self.q), self._value('bandwidth'),
                                self._value('damping_ratio'))
        path = self._value('gains_file')
        if not path:
            return derived
        with open(path, encoding='utf-8') as gains_file:
            file_gains = parse_gains(gains_file.read(), f'gains_file "{path}"')
        gains, left = gains_with_file(derived, self.chain.joint_names, file_gains,
                                      f'gains_file "{path}"')
        if left:
            self.get_logger().info(f'gains derived from the inertia for {", ".join(left)}')
        return gains

    def _base_frame_objects(self, scene: List[SceneObject]) -> List[SceneObject]:
        """Return the objects placed in the base frame; warn about the others."""
        elsewhere = [item.name for item in scene
                     if item.frame and item.frame != self.chain.base_link]
        if elsewhere:
            self.get_logger().warning('scene objects in other TF frames are not simulated: '
                                      + ', '.join(elsewhere))
        return [item for item in scene if item.name not in elsewhere]

    def _on_scene(self, message: String) -> None:
        """Rebuild the model with the objects of a collision_scene message (scene YAML)."""
        try:
            scene = self._base_frame_objects(parse_scene(message.data, 'collision_scene'))
            self._collision = with_scene(self._collision, scene)
            arm = build_arm_model(self._robot, self._collision, self._drives, self._options)
        except (SceneError, GeometryError, ValueError) as error:
            self.get_logger().error(f'collision_scene not simulated: {error}')
            return
        self._simulation.replace_model(arm)
        self.get_logger().info(f'collision scene: {len(scene)} objects '
                               f'({", ".join(item.name for item in scene) or "none"})')

    def _step(self) -> None:
        """
        Step MuJoCo through the wall-clock time since the last loop along the reference.

        The steps due (:class:`ros_ik.physics.wall_clock_steps.WallClockSteps`; the node
        clock and the wall clock read as a pair) end a fraction of a step before now: they
        follow the reference from where the last loop left it to the reference at the time
        they reach (the setpoint or the extrapolated command), so that the curve between
        the two spans the time the reference moved in (sampled at now, with the loop's
        period irregular on a loaded machine, the UR5's drives saturated at half its speed
        limits; read apart, a preemption between the two clocks did the same), and not the
        reference extrapolated into the future (on a starved process that lead was a
        tracking error of the speed times the delay). After a skipped stall the arm is
        placed on the reference's start (the module docstring); that start, and the first
        loop's, is the reference at the steps' end extrapolated back.
        """
        now, wall = paired_reading(self._now, time.monotonic)
        due = self._wall_steps.due(wall)
        reached = now - due.lag  # node clock time (s) the steps due reach
        setpoint = self._trajectory_setpoint(reached)
        if setpoint is not None:
            end = (self._command.target, setpoint.velocity)
        else:
            end = self._command_reference(reached)
        simulation = self._simulation
        start = None if due.skipped else self._reference
        if start is None:
            start = (end[0] - end[1] * (due.steps * self._wall_steps.timestep), end[1])
            if self._reference is not None:  # as if the drives had followed meanwhile
                simulation.place(*start)
        if due.steps > 0:
            simulation.advance_between(start, end, due.steps)
            self._reference = end
        self.q, self.velocity = simulation.q, simulation.velocity
        self._measure(end[0])
        self._publish_state(reached, simulation.effort)

    def _measure(self, q_ref: np.ndarray) -> None:
        """Sample tracking, saturation and contacts; log new contacts; strict faults."""
        simulation = self._simulation
        error = q_ref - self.q
        tool_error = float(np.linalg.norm(self._kinematics.tip_pose(q_ref)[:3, 3]
                                          - self._kinematics.tip_pose(self.q)[:3, 3]))
        contacts = simulation.contacts()
        for contact in self._monitor.sample(error, tool_error, simulation.saturation(),
                                            contacts):
            self._warn(f'contact {contact.first} {contact.second}',
                       f'contact: {contact.first} touches {contact.second} '
                       f'({contact.force:.1f} N)')
        if not self.get_parameter('strict').value or self._faulted:
            return
        force_limit = self._value('max_contact_force')
        if contacts and contacts[0].force > force_limit:
            self._fault(f'contact force {contacts[0].force:.1f} N between {contacts[0].first} '
                        f'and {contacts[0].second} (limit {force_limit:g} N)')
            return
        joint = int(np.argmax(np.abs(error)))
        if abs(error[joint]) > self._value('max_tracking_error'):
            self._fault(f'tracking error {abs(error[joint]):.4g} on '
                        f'{self.chain.joint_names[joint]} (limit '
                        f'{self._value("max_tracking_error"):g}; the last command came '
                        f'{self._now() - self._command.time:.3f} s ago)')

    def _publish_diagnostics(self) -> None:
        """Publish the window's peaks: drives (tracking, effort, real time) and contacts."""
        peaks = self._monitor.take_window()
        wall = time.monotonic()
        started_wall, started_simulated = self._report_started
        simulated = self._wall_steps.simulated
        real_time = (simulated - started_simulated) / max(wall - started_wall, 1e-9)
        self._report_started = (wall, simulated)
        saturated = [self.chain.joint_names[j] for j in self._monitor.saturated_joints(peaks)]
        if saturated:
            self._warn('saturated', 'drives at their effort limit: ' + ', '.join(saturated))
        message = DiagnosticArray()
        message.header.stamp = self.get_clock().now().to_msg()
        message.status = [self._drives_status(peaks, saturated, real_time),
                          self._contacts_status(peaks)]
        self._diagnostics.publish(message)

    def _drives_status(self, peaks: Peaks, saturated: List[str],
                       real_time: float) -> DiagnosticStatus:
        """Return the drives' status: tracking errors, effort / limit, real-time factor."""
        level = 'ERROR' if self._faulted else 'WARN' if saturated else 'OK'
        text = ('faulted' if self._faulted else 'saturated: ' + ', '.join(saturated)
                if saturated else 'tracking')
        run = self._monitor.run
        values = {'tool_tracking_error': format_value(peaks.tool_error),
                  'joint_tracking_error': format_value(peaks.joint_error.max(initial=0.0)),
                  'effort_fraction': format_value(peaks.saturation.max(initial=0.0)),
                  'real_time_factor': format_value(real_time),
                  'run_tool_tracking_error': format_value(run.tool_error),
                  'run_effort_fraction': format_value(run.saturation.max(initial=0.0)),
                  'faults': str(self.fault_count)}
        for name, error, fraction in zip(self.chain.joint_names, peaks.joint_error,
                                         peaks.saturation):
            values[f'{name}/tracking_error'] = format_value(error)
            values[f'{name}/effort_fraction'] = format_value(fraction)
        return diagnostic_status('physics_arm: drives', 'physics_arm', level, text, values)

    def _contacts_status(self, peaks: Peaks) -> DiagnosticStatus:
        """Return the contacts' status: events so far and the window's peak force per pair."""
        values = {'contact_events': str(self._monitor.contact_events)}
        values.update({f'{first} / {second}': format_value(force)
                       for (first, second), force in peaks.contact_force.items()})
        touching = len(peaks.contact_force)
        return diagnostic_status('physics_arm: contacts', 'physics_arm',
                                 'ERROR' if touching else 'OK',
                                 f'{touching} pairs touching' if touching else 'no contact',
                                 values)


def main(args: Optional[List[str]] = None) -> int:
    """Run the physics-backed arm; return 1 on a bad URDF, SRDF, scene, gains or limits."""
    return run_node(PhysicsArm, 'physics_arm', STARTUP_ERRORS, args)


if __name__ == '__main__':
    sys.exit(main())
