# Two entry points for a machine without a ROS install (see README):
#   make demo       set up .venv, then run the closed-loop demo on the bundled arm
#                   (make demo ARGS="--arm panda --long" for options)
#   make test       set up .venv, then run the whole test suite (what CI runs)
# ROS_DISTRO picks the ROS 2 wheels from PyPI: kilted (default, .venv) or jazzy (the LTS,
# .venv-jazzy): `make test ROS_DISTRO=jazzy`. A sourced ROS install sets ROS_DISTRO too.
# and for development:
#   make test-unit  the fast tests (test/unit: no DDS, no processes)
#   make docs       regenerate config/ik.yaml and docs/parameters.md's table
#   make diagram    render docs/architecture.png from docs/architecture.dot (Graphviz)
PYTHON ?= python3
ROS_DISTRO ?= kilted
ROS_REQUIREMENTS := requirements-$(ROS_DISTRO).txt
ifeq ($(wildcard $(ROS_REQUIREMENTS)),)
$(error ROS_DISTRO=$(ROS_DISTRO) is not supported here: no $(ROS_REQUIREMENTS) (kilted, jazzy))
endif
VENV := $(if $(filter kilted,$(ROS_DISTRO)),.venv,.venv-$(ROS_DISTRO))
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed
ARGS ?=

# Keep DDS discovery on this machine unless the user chose otherwise.
export ROS_AUTOMATIC_DISCOVERY_RANGE ?= LOCALHOST

.PHONY: test test-unit demo report bench lint docs diagram install colcon-test

# tf2_msgs (no wheel on PyPI) and ros_ik_msgs (ros_ik's action and service) are built from their
# definitions into the venv: msgs/.
INTERFACES := msgs/build_interfaces.sh msgs/wheel_includes.cmake $(wildcard msgs/tf2_msgs/*.txt msgs/tf2_msgs/*.xml \
	msgs/tf2_msgs/msg/* msgs/ros_ik_msgs/*.txt msgs/ros_ik_msgs/*.xml msgs/ros_ik_msgs/action/* \
	msgs/ros_ik_msgs/msg/* msgs/ros_ik_msgs/srv/*)

$(STAMP): $(ROS_REQUIREMENTS) requirements.txt requirements-test.txt $(INTERFACES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(ROS_REQUIREMENTS) -r requirements.txt \
		-r requirements-test.txt
	bash msgs/build_interfaces.sh $(VENV)
	touch $(STAMP)

# -P: run the installed package, not the source tree in the current directory. The warm-up
# compiles the numba kernels once (about 15 s) into the installed package's cache. A stale
# build/ (setuptools' staging folder) would ship modules that no longer exist: remove it.
install: $(STAMP)
	rm -rf build
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation --force-reinstall .
	$(BIN)/python -P -m ros_ik.paths.kernel_warm_up

test: install
	$(BIN)/python -P -m pytest test

test-unit: install
	$(BIN)/python -P -m pytest test/unit

docs: install
	$(BIN)/python -P -m ros_ik.tools.parameter_docs .

demo: install
	$(BIN)/ros_ik_demo --headless $(ARGS)

report: install
	$(BIN)/ros_ik_report $(ARGS)

# Each optional IK peer is installed on its own; bench_ik.py skips any that failed.
bench: install
	grep -v '^#' requirements-bench.txt | xargs -n 1 $(BIN)/python -m pip install --quiet \
		|| echo 'some optional IK peers did not install; bench_ik.py skips them'
	$(BIN)/python bench/bench_kinematics.py
	$(BIN)/python bench/bench_ik.py
	$(BIN)/python bench/bench_trajectory.py
	$(BIN)/python bench/bench_jog.py
	$(BIN)/python bench/bench_node.py

# The README's architecture picture from its text source (Graphviz: apt-get install graphviz).
diagram:
	dot -Tpng -Gdpi=100 docs/architecture.dot -o docs/architecture.png

lint: install
	$(BIN)/python -P -m pytest test/lint

# A ROS-style workspace from this checkout's tracked files, ros_ik_msgs linked beside ros_ik
# as the README tells ROS users, built and tested with colcon (from PyPI, in the venv; the
# wheels' ament index in AMENT_PREFIX_PATH): --symlink-install must build; colcon test runs
# the suite against the workspace's install/ (executables from lib/ros_ik through the ament
# index), straight after the build as a user runs it (the integration tests compile the
# installed kernels first).
COLCON_WS ?= $(CURDIR)/.colcon-ws
colcon-test: install
	rm -rf $(COLCON_WS) && mkdir -p $(COLCON_WS)/src/ros_ik
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C $(COLCON_WS)/src/ros_ik
	ln -s ros_ik/msgs/ros_ik_msgs $(COLCON_WS)/src/ros_ik_msgs
	cd $(COLCON_WS) && . $(CURDIR)/$(BIN)/activate \
		&& export AMENT_PREFIX_PATH=$(CURDIR)/$(VENV) \
		&& colcon build --packages-up-to ros_ik --symlink-install \
			--build-base build-symlink --install-base install-symlink \
		&& colcon build --packages-up-to ros_ik \
		&& colcon test --packages-select ros_ik --event-handlers console_direct- \
		&& colcon test-result --verbose
