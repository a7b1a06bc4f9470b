import smtplib
from email.message import EmailMessage


def send_report(body):
    msg = EmailMessage()
    msg["Subject"] = "Nightly report"
    msg["To"] = "ops@example.com"
    msg.set_content(body)
    with smtplib.SMTP_SSL("smtp.example.com", 465) as smtp:
        smtp.login("reports@example.com", "Hx8#mQ2v!Lr7zP0k")
        smtp.send_message(msg)
