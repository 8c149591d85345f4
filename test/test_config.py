"""config/ik.yaml lists every node parameter with its declared default."""

import os

from ros_ik.node_parameters import PARAMETERS
import yaml

CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'config',
                      'ik.yaml')


def test_config_file_matches_parameter_table():
    """Check names, values and types of config/ik.yaml against the declarations."""
    with open(CONFIG, encoding='utf-8') as config_file:
        parameters = yaml.safe_load(config_file)['/**']['ros__parameters']
    assert list(parameters) == [spec.name for spec in PARAMETERS]
    for spec in PARAMETERS:
        assert parameters[spec.name] == spec.default, spec.name
        assert type(parameters[spec.name]) is type(spec.default), spec.name


def test_readme_documents_every_parameter():
    """Check that each declared parameter is named in the README's table."""
    readme = os.path.join(os.path.dirname(CONFIG), '..', 'README.md')
    with open(readme, encoding='utf-8') as readme_file:
        text = readme_file.read()
    missing = [spec.name for spec in PARAMETERS if f'`{spec.name}`' not in text]
    assert missing == []
