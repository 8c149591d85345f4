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
The arm as a MuJoCo model: the chain's bodies, joints, drives and collision shapes.

Frames: MuJoCo's world frame is the chain's base frame (m); gravity is given in it.
Body ``j + 1`` (the child link of moving joint ``j``) hangs on body ``j`` (0: the world) at
the joint's constant transform ``T_prev_joint``; its hinge (revolute, continuous) or slide
(prismatic) joint is at the body origin along the joint axis, limited to the URDF's
position range (a mechanical stop), with the URDF's ``<dynamics>`` damping and friction.

Mass: each body's links' ``<inertial>`` elements (:mod:`ros_ik.physics.link_inertia`); a
body none of whose links has one gets the mass of its collision shapes at ``density``
(MuJoCo's inertia from geometry), and every moving body at least ``MIN_MASS`` and
``MIN_INERTIA`` (a frame link with neither inertial nor shapes).

Drives: one position actuator per joint, ``tau = kp (ctrl - q) - kd v`` clamped to the
URDF's ``effort`` (none: unlimited). With ``ctrl = q_ref + (kd / kp) v_ref`` this is
``kp (q_ref - q) + kd (v_ref - v)``. With gravity compensation the drives also add the
gravity torque of the bodies they carry (MuJoCo's ``gravcomp`` routed through the
actuators): the total is clamped to the effort limit too, as in a real drive.

Contacts: the collision model's shapes (meshes as their convex hulls, as the IK node
checks them) and scene objects are geoms; only the element pairs the IK node checks
collide (SRDF-disabled, adjacent and allowed pairs do not), so a contact here is one the
IK node was responsible for avoiding.
"""

from dataclasses import dataclass
import math
from typing import List, Sequence, Tuple

import mujoco
import numpy as np
from ros_ik.collision.collision_model import CollisionModel
from ros_ik.kinematics.chain import Chain, PRISMATIC
from ros_ik.kinematics.transforms import matrix_to_quaternion
from ros_ik.physics.link_inertia import body_inertias

MIN_MASS = 1e-3  # kg
MIN_INERTIA = 1e-6  # kg m^2


@dataclass(frozen=True)
class PhysicsOptions:
    """
    Simulation settings.

    ``timestep`` s; ``gravity`` (3,) m/s^2 in the base frame; ``gravity_compensation``:
    the drives hold the arm's weight; ``density`` kg/m^3 of links without an inertial.
    """

    timestep: float = 0.001
    gravity: Tuple[float, float, float] = (0.0, 0.0, -9.81)
    gravity_compensation: bool = True
    density: float = 1000.0


@dataclass(frozen=True)
class JointDrives:
    """Per joint (chain order): ``effort`` limit (N m or N; inf: none), damping, friction."""

    effort: np.ndarray
    damping: np.ndarray
    friction: np.ndarray


def joint_drives(robot, chain: Chain) -> JointDrives:
    """Return the URDF's effort limits and ``<dynamics>`` of the chain's joints."""
    effort, damping, friction = [], [], []
    for name in chain.joint_names:
        joint = robot.joint_map[name]
        limit = joint.limit.effort if joint.limit is not None else None
        effort.append(float(limit) if limit else math.inf)
        dynamics = joint.dynamics
        damping.append(float(dynamics.damping or 0.0) if dynamics is not None else 0.0)
        friction.append(float(dynamics.friction or 0.0) if dynamics is not None else 0.0)
    return JointDrives(np.array(effort), np.array(damping), np.array(friction))


@dataclass(frozen=True)
class ArmModel:
    """
    A compiled model and where the chain lives in it.

    ``qpos``/``dofs`` (n,): each chain joint's index in ``qpos`` and ``qvel``;
    ``actuators`` (n,): its actuator; ``geom_owners``: the link or scene object of every
    geom id; ``links_without_inertial``: the links whose body's mass came from its shapes.
    """

    model: mujoco.MjModel
    qpos: np.ndarray
    dofs: np.ndarray
    actuators: np.ndarray
    geom_owners: Tuple[str, ...]
    links_without_inertial: Tuple[str, ...]


def _place(element, T: np.ndarray) -> None:
    """Set a MuJoCo spec element's ``pos`` and ``quat`` (w, x, y, z) from a 4x4 pose."""
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    element.pos = T[:3, 3]
    element.quat = [w, x, y, z]


def _add_geom(spec: mujoco.MjSpec, body, index: int, shape, density: float) -> None:
    """Add collision element ``index`` (a :class:`ros_ik.collision.shapes.Shape`) to body."""
    geom = body.add_geom(name=f'element{index}', contype=0, conaffinity=0, density=density)
    _place(geom, shape.T_frame_shape)
    if shape.kind == 'box':
        geom.type = mujoco.mjtGeom.mjGEOM_BOX
        geom.size = 0.5 * np.array(shape.size)
    elif shape.kind == 'sphere':
        geom.type = mujoco.mjtGeom.mjGEOM_SPHERE
        geom.size = [shape.radius, 0.0, 0.0]
    elif shape.kind == 'cylinder':
        geom.type = mujoco.mjtGeom.mjGEOM_CYLINDER
        geom.size = [shape.radius, 0.5 * shape.length, 0.0]
    else:  # a mesh's convex hull: MuJoCo takes the hull of the vertices
        spec.add_mesh(name=f'hull{index}', uservert=np.asarray(shape.points).ravel())
        geom.type = mujoco.mjtGeom.mjGEOM_MESH
        geom.meshname = f'hull{index}'


def _add_joint_body(spec: mujoco.MjSpec, parent, joint, inertia, drives: JointDrives,
                    index: int, options: PhysicsOptions):
    """Add the body of chain joint ``index`` with its joint and position actuator."""
    body = parent.add_body(name=joint.child_link)
    _place(body, joint.T_prev_joint)
    if inertia is not None:
        body.explicitinertial = True
        body.mass = inertia.mass
        body.ipos = inertia.com
        I = inertia.inertia  # noqa: E741 (the inertia tensor's usual name)
        body.fullinertia = [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
    if options.gravity_compensation:
        body.gravcomp = 1.0
    hinge = joint.joint_type != PRISMATIC
    mj_joint = body.add_joint(name=joint.name, axis=joint.axis,
                              type=mujoco.mjtJoint.mjJNT_HINGE if hinge
                              else mujoco.mjtJoint.mjJNT_SLIDE)
    if math.isfinite(joint.lower) and math.isfinite(joint.upper):
        mj_joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        mj_joint.range = [joint.lower, joint.upper]
    mj_joint.damping = drives.damping[index]
    mj_joint.frictionloss = drives.friction[index]
    effort = drives.effort[index]
    actuator = spec.add_actuator(name=joint.name, target=joint.name,
                                 trntype=mujoco.mjtTrn.mjTRN_JOINT)
    actuator.set_to_position(kp=1.0, kv=0.0)  # the gains are set in the compiled model
    if math.isfinite(effort):
        actuator.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        actuator.forcerange = [-effort, effort]
        mj_joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
        mj_joint.actfrcrange = [-effort, effort]
    mj_joint.actgravcomp = options.gravity_compensation
    return body


def build_arm_model(robot, collision: CollisionModel, drives: JointDrives,
                    options: PhysicsOptions) -> ArmModel:
    """
    Compile the MuJoCo model of the parsed URDF ``robot`` and ``collision``'s shapes.

    ``collision`` gives the chain, the shapes of every body (scene objects included) and
    the element pairs that may touch. Raises ``ValueError`` when MuJoCo rejects the model.
    """
    chain = collision.kinematics.chain
    spec = mujoco.MjSpec()
    spec.modelname = robot.name or 'arm'
    spec.option.timestep = options.timestep
    spec.option.gravity = list(options.gravity)
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.compiler.degree = False  # joint ranges in rad
    spec.compiler.boundmass = MIN_MASS
    spec.compiler.boundinertia = MIN_INERTIA
    spec.compiler.balanceinertia = True
    inertias = body_inertias(robot, collision.robot.link_bodies, chain.n_joints + 1)
    bodies = [spec.worldbody]
    for index, joint in enumerate(chain.joints):
        bodies.append(_add_joint_body(spec, bodies[-1], joint, inertias[index + 1], drives,
                                      index, options))
    for index, element in enumerate(collision.elements):
        _add_geom(spec, bodies[element.body], index, element.shape, options.density)
    for a, b in collision.pairs:
        if collision.elements[a].body != collision.elements[b].body:
            spec.add_pair(geomname1=f'element{a}', geomname2=f'element{b}')
    try:
        model = spec.compile()
    except ValueError as error:
        raise ValueError(f'MuJoCo cannot build the arm: {error}') from error
    owners = [''] * model.ngeom
    for index, element in enumerate(collision.elements):
        owners[model.geom(f'element{index}').id] = element.owner
    names = chain.joint_names
    return ArmModel(model, np.array([model.joint(name).qposadr[0] for name in names]),
                    np.array([model.joint(name).dofadr[0] for name in names]),
                    np.array([model.actuator(name).id for name in names]), tuple(owners),
                    _links_massed_from_shapes(collision, inertias))


def _links_massed_from_shapes(collision: CollisionModel,
                              inertias: Sequence[object]) -> Tuple[str, ...]:
    """Return the robot links with shapes on moving bodies that have no inertial at all."""
    return tuple(dict.fromkeys(
        body_shape.owner for body_shape in collision.robot.shapes
        if body_shape.body > 0 and inertias[body_shape.body] is None))


def joint_inertia(arm: ArmModel, q: np.ndarray) -> np.ndarray:
    """Return the diagonal ``M_jj`` (n,) of the joint-space mass matrix at ``q`` (n,)."""
    data = mujoco.MjData(arm.model)
    data.qpos[arm.qpos] = q
    mujoco.mj_forward(arm.model, data)
    full = np.zeros((arm.model.nv, arm.model.nv))
    mujoco.mj_fullM(arm.model, full, data.qM)
    return full[arm.dofs, arm.dofs] + arm.model.dof_armature[arm.dofs]


def scene_contact_owners(arm: ArmModel, data: mujoco.MjData) -> List[Tuple[str, str, float]]:
    """Return ``(owner, owner, normal force N)`` of every active contact, largest first."""
    contacts = []
    force = np.zeros(6)
    for index in range(data.ncon):
        contact = data.contact[index]
        mujoco.mj_contactForce(arm.model, data, index, force)
        contacts.append((arm.geom_owners[contact.geom1], arm.geom_owners[contact.geom2],
                         float(abs(force[0]))))
    return sorted(contacts, key=lambda entry: -entry[2])


def set_gains(arm: ArmModel, kp: Sequence[float], kd: Sequence[float]) -> None:
    """Write position-loop gains into the compiled model's actuators (``tau`` above)."""
    model = arm.model
    model.actuator_gainprm[arm.actuators, 0] = kp
    model.actuator_biasprm[arm.actuators, 1] = -np.asarray(kp)
    model.actuator_biasprm[arm.actuators, 2] = -np.asarray(kd)
