import os
import tarfile


def unpack(archive_path, target_dir):
    root = os.path.realpath(target_dir)
    with tarfile.open(archive_path) as tar:
        for member in tar.getmembers():
            dest = os.path.realpath(os.path.join(root, member.name))
            if not dest.startswith(root + os.sep):
                raise ValueError(f"unsafe member {member.name}")
        tar.extractall(root)
