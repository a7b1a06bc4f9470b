import os
import zipfile


def unpack(archive_path, dest):
    with zipfile.ZipFile(archive_path) as zf:
        for info in zf.infolist():
            target = os.path.join(dest, info.filename)
            with open(target, "wb") as out:
                out.write(zf.read(info))
