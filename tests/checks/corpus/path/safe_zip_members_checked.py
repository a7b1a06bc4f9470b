import os
import zipfile


def unpack(archive_path, dest):
    root = os.path.realpath(dest)
    with zipfile.ZipFile(archive_path) as zf:
        zf.extractall(dest)
        for info in zf.infolist():
            target = os.path.realpath(os.path.join(root, info.filename))
            if not target.startswith(root + os.sep):
                raise ValueError("unsafe member")
            with open(target + ".sha", "w") as out:
                out.write(str(info.CRC))
