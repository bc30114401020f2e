"""The extension nnef._nnef comes from the project's CMake (python/CMakeLists.txt).

`pip install --no-build-isolation python/` builds it with CMake: in the build folder named by
NNEF_BUILD_DIR, or else in the repository's build/ when it is configured with NNEF_BUILD_PYTHON
(only the module's target is brought up to date), or else in a fresh folder of its own (the
library, without tests and tools). The interpreter that runs pip is the one built for."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _configured_for_python(build):
    """True when `build` is a CMake build folder with the module on, for this interpreter."""
    cache = os.path.join(build, 'CMakeCache.txt')
    if not os.path.isfile(cache):
        return False
    values = {}
    with open(cache) as f:
        for line in f:
            if '=' in line and ':' in line.split('=', 1)[0]:
                key, value = line.rstrip('\n').split('=', 1)
                values[key.split(':', 1)[0]] = value
    python = values.get('Python3_EXECUTABLE', '')
    return values.get('NNEF_BUILD_PYTHON') == 'ON' and python != '' and \
        os.path.realpath(python) == os.path.realpath(sys.executable)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        jobs = os.environ.get('NNEF_JOBS', str(os.cpu_count() or 1))
        build = os.environ.get('NNEF_BUILD_DIR') or os.path.join(ROOT, 'build')
        if not _configured_for_python(build):
            build = os.path.abspath(os.path.join(self.build_temp, 'cmake'))
            os.makedirs(build, exist_ok=True)
            subprocess.check_call(['cmake', '-S', ROOT, '-B', build, '-DCMAKE_BUILD_TYPE=Release',
                                   '-DNNEF_BUILD_PYTHON=ON', '-DNNEF_BUILD_TESTS=OFF', '-DNNEF_BUILD_TOOLS=OFF',
                                   '-DPython3_EXECUTABLE=' + sys.executable])
        subprocess.check_call(['cmake', '--build', build, '-j' + jobs, '--target', 'nnef_python'])
        built = glob.glob(os.path.join(build, 'python', 'nnef', '_nnef*.so'))
        if len(built) != 1:
            raise RuntimeError('the CMake build made no single _nnef module in ' + os.path.join(build, 'python', 'nnef'))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension('nnef._nnef', sources=[])], cmdclass={'build_ext': CMakeBuild})
